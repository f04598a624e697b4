package io.fabricpulse.schemas.registry;

/**
 * A registry call failed. {@code errorCode} is the registry's own error code (e.g. 40401 subject
 * not found, 40403 schema not found, 409 incompatible) or the HTTP status when the body had none.
 */
public class SchemaRegistryException extends RuntimeException {
  private final int errorCode;

  public SchemaRegistryException(int errorCode, String message) {
    super(message + " (error_code " + errorCode + ")");
    this.errorCode = errorCode;
  }

  public SchemaRegistryException(String message, Throwable cause) {
    super(message, cause);
    this.errorCode = -1;
  }

  public int errorCode() {
    return errorCode;
  }
}
