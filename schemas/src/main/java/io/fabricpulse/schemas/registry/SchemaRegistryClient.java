package io.fabricpulse.schemas.registry;

import java.io.Closeable;
import org.apache.avro.Schema;

/**
 * The part of the Confluent Schema Registry API that serializers use. Implementations: {@link
 * InMemorySchemaRegistry} (selected by a {@code mock://scope} URL) and {@link
 * RestSchemaRegistryClient} (a real registry over HTTP).
 */
public interface SchemaRegistryClient extends Closeable {

  /**
   * Registers {@code schema} under {@code subject} (idempotent: an identical schema returns its
   * existing id). POST /subjects/{subject}/versions.
   */
  int register(String subject, Schema schema);

  /** The schema with this global id. GET /schemas/ids/{id}. */
  Schema getById(int id);

  /** The latest registered version of a subject. GET /subjects/{subject}/versions/latest. */
  RegisteredSchema latest(String subject);

  /**
   * The id of {@code schema} if it is already registered under {@code subject}, without registering
   * it. POST /subjects/{subject}.
   */
  int lookup(String subject, Schema schema);

  /**
   * Whether {@code schema} is compatible with the latest version of {@code subject} under the
   * subject's compatibility level. POST /compatibility/subjects/{subject}/versions/latest.
   */
  boolean isCompatible(String subject, Schema schema);

  @Override
  default void close() {}

  /** A schema as stored in a subject. */
  record RegisteredSchema(String subject, int version, int id, Schema schema) {}
}
