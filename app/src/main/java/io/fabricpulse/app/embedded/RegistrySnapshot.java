package io.fabricpulse.app.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * The schemas of an in-process ({@code mock://}) registry kept beside the embedded broker's data,
 * so the records a demo left in its data directory can still be decoded by a later run (their
 * Confluent wire format names schemas by id, and an in-process registry forgets them at exit). One
 * JSON object per line: {@code {"id":1,"schema":"<Avro schema JSON>"}}, in id order.
 */
public final class RegistrySnapshot {
  /** The file in a data directory. */
  public static final String FILE = "registry-schemas.jsonl";

  private static final ObjectMapper JSON = new ObjectMapper();

  private RegistrySnapshot() {}

  /**
   * Writes every schema of {@code registry} (ids 1, 2, ... as long as they exist) to {@code
   * dataDir}.
   */
  public static void save(InMemorySchemaRegistry registry, Path dataDir) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int id = 1; ; id++) {
      Schema schema;
      try {
        schema = registry.getById(id);
      } catch (SchemaRegistryException missing) {
        break;
      }
      lines.add(JSON.writeValueAsString(Map.of("id", id, "schema", schema.toString())));
    }
    Files.createDirectories(dataDir);
    Path tmp = dataDir.resolve(FILE + ".tmp");
    Files.write(tmp, lines, StandardCharsets.UTF_8);
    Files.move(
        tmp,
        dataDir.resolve(FILE),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Gives {@code registry} the schemas saved in {@code dataDir} under their saved ids (nothing when
   * there is no file). Each is registered under a subject of its own, {@code restored-<id>}; a
   * producer registering the same schema later gets the same id back.
   *
   * @return how many schemas the file held
   * @throws IOException when the file is unreadable, or the registry already holds another schema
   *     under one of the ids
   */
  public static int restore(InMemorySchemaRegistry registry, Path dataDir) throws IOException {
    Path file = dataDir.resolve(FILE);
    if (!Files.exists(file)) {
      return 0;
    }
    int count = 0;
    int lineNo = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      int id;
      Schema schema;
      try {
        JsonNode entry = JSON.readTree(line);
        id = entry.get("id").asInt();
        schema = new Schema.Parser().parse(entry.get("schema").asText());
      } catch (IOException | RuntimeException e) {
        throw new IOException(file + ":" + lineNo + ": not a saved schema: " + e.getMessage(), e);
      }
      Schema existing = null;
      try {
        existing = registry.getById(id);
      } catch (SchemaRegistryException missing) {
        // free: register below
      }
      if (existing == null) {
        int given = registry.register("restored-" + id, schema);
        if (given != id) {
          throw new IOException(
              file
                  + ":"
                  + lineNo
                  + ": schema id "
                  + id
                  + " came back as "
                  + given
                  + " (the registry "
                  + registry.scope()
                  + " already held other schemas)");
        }
      } else if (!existing.equals(schema)) {
        throw new IOException(
            file
                + ":"
                + lineNo
                + ": schema id "
                + id
                + " is another schema in registry "
                + registry.scope());
      }
      count++;
    }
    return count;
  }
}
