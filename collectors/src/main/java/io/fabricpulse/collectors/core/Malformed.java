package io.fabricpulse.collectors.core;

/**
 * One piece of input that did not parse: counted and skipped, never fatal.
 *
 * @param source file path or tool name
 * @param line 1-based line number, 0 when not line-based
 */
public record Malformed(String source, long line, String reason) {
  @Override
  public String toString() {
    return source + (line > 0 ? ":" + line : "") + ": " + reason;
  }
}
