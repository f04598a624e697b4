package io.fabricpulse.schemas.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * An in-process registry with the same semantics as Confluent's: global ids shared across subjects,
 * versions per subject, BACKWARD compatibility enforced on register. Instances are shared per
 * scope, so {@code mock://demo} means the same registry for every serde of the JVM, as with
 * Confluent's {@code MockSchemaRegistry}.
 */
public final class InMemorySchemaRegistry implements SchemaRegistryClient {

  private static final Map<String, InMemorySchemaRegistry> SCOPES = new ConcurrentHashMap<>();

  private final String scope;
  private final Map<Integer, Schema> byId = new HashMap<>();
  private final Map<Schema, Integer> idBySchema = new HashMap<>();
  private final Map<String, List<Integer>> versionsBySubject = new HashMap<>();

  private InMemorySchemaRegistry(String scope) {
    this.scope = scope;
  }

  /** The registry of a scope, created on first use. */
  public static InMemorySchemaRegistry forScope(String scope) {
    return SCOPES.computeIfAbsent(scope, InMemorySchemaRegistry::new);
  }

  /** Forgets a scope (tests call this to start clean). */
  public static void dropScope(String scope) {
    SCOPES.remove(scope);
  }

  public String scope() {
    return scope;
  }

  @Override
  public synchronized int register(String subject, Schema schema) {
    List<Integer> versions = versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
    Integer existing = idBySchema.get(schema);
    if (existing != null && versions.contains(existing)) {
      return existing;
    }
    if (!versions.isEmpty() && !compatible(schema, byId.get(versions.get(versions.size() - 1)))) {
      throw new SchemaRegistryException(
          409,
          "Schema being registered is incompatible with the latest version of subject " + subject);
    }
    int id = existing != null ? existing : byId.size() + 1;
    byId.put(id, schema);
    idBySchema.put(schema, id);
    versions.add(id);
    return id;
  }

  @Override
  public synchronized Schema getById(int id) {
    Schema schema = byId.get(id);
    if (schema == null) {
      throw new SchemaRegistryException(40403, "Schema " + id + " not found");
    }
    return schema;
  }

  @Override
  public synchronized RegisteredSchema latest(String subject) {
    List<Integer> versions = versionsBySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      throw new SchemaRegistryException(40401, "Subject '" + subject + "' not found");
    }
    int id = versions.get(versions.size() - 1);
    return new RegisteredSchema(subject, versions.size(), id, byId.get(id));
  }

  @Override
  public synchronized int lookup(String subject, Schema schema) {
    List<Integer> versions = versionsBySubject.get(subject);
    if (versions == null) {
      throw new SchemaRegistryException(40401, "Subject '" + subject + "' not found");
    }
    Integer id = idBySchema.get(schema);
    if (id == null || !versions.contains(id)) {
      throw new SchemaRegistryException(40403, "Schema not found in subject " + subject);
    }
    return id;
  }

  @Override
  public synchronized boolean isCompatible(String subject, Schema schema) {
    List<Integer> versions = versionsBySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      return true;
    }
    return compatible(schema, byId.get(versions.get(versions.size() - 1)));
  }

  /** BACKWARD: data written with the previous schema can be read with the new one. */
  private static boolean compatible(Schema reader, Schema writer) {
    return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
        == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
  }
}
