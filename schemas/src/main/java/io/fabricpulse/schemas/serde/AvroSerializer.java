package io.fabricpulse.schemas.serde;

import io.fabricpulse.schemas.registry.SchemaRegistryClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes specific Avro records in the Confluent wire format: magic byte 0, the 4-byte big-endian
 * schema id, then the Avro binary encoding. Subject naming is TopicNameStrategy ({@code
 * <topic>-value}, {@code <topic>-key}).
 */
public class AvroSerializer<T extends SpecificRecord> implements Serializer<T> {

  public static final byte MAGIC_BYTE = 0;

  private SchemaRegistryClient registry;
  private AvroSerdeConfig config;
  private boolean isKey;
  private final Map<Schema, SpecificDatumWriter<T>> writers =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final Map<String, Integer> idByTopic = new java.util.concurrent.ConcurrentHashMap<>();

  public AvroSerializer() {}

  /** For programmatic use, e.g. with a shared registry client. */
  public AvroSerializer(SchemaRegistryClient registry, AvroSerdeConfig config, boolean isKey) {
    this.registry = registry;
    this.config = config;
    this.isKey = isKey;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    this.config = AvroSerdeConfig.from(configs);
    this.registry = config.client();
    this.isKey = isKey;
  }

  @Override
  public byte[] serialize(String topic, T record) {
    if (record == null) {
      return null;
    }
    Schema schema = record.getSchema();
    int id =
        idByTopic.computeIfAbsent(
            topic + '\0' + schema.getFullName(), k -> schemaId(topic, schema));
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(256);
      out.write(MAGIC_BYTE);
      out.write(ByteBuffer.allocate(4).putInt(id).array());
      BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
      writers.computeIfAbsent(schema, SpecificDatumWriter::new).write(record, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          "cannot serialize " + schema.getFullName() + " for topic " + topic + ": " + e, e);
    }
  }

  private int schemaId(String topic, Schema schema) {
    String subject = topic + (isKey ? "-key" : "-value");
    try {
      if (config.useLatestVersion()) {
        return registry.latest(subject).id();
      }
      return config.autoRegisterSchemas()
          ? registry.register(subject, schema)
          : registry.lookup(subject, schema);
    } catch (RuntimeException e) {
      throw new SerializationException(
          "schema registry refused "
              + schema.getFullName()
              + " for "
              + subject
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
