package io.fabricpulse.schemas.serde;

import io.fabricpulse.schemas.registry.SchemaRegistryClient;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes specific Avro records in the Confluent wire format: magic byte 0, the 4-byte big-endian
 * schema id, then the Avro binary encoding. Subjects are named by {@link SubjectNaming} ({@code
 * value.subject.name.strategy}); fabricpulse's default, TopicRecordNameStrategy ({@code
 * <topic>-<record full name>}), lets one topic carry the records of two contract versions during a
 * rolling upgrade, each checked for compatibility against its own history.
 *
 * <p>With {@code use.latest.version=true} the payload is written with the subject's latest schema
 * (the id in the payload must describe the bytes): a record whose own schema differs is first
 * resolved onto the latest schema, which must be able to read it.
 */
public class AvroSerializer<T extends SpecificRecord> implements Serializer<T> {

  public static final byte MAGIC_BYTE = 0;

  private SchemaRegistryClient registry;
  private AvroSerdeConfig config;
  private boolean isKey;
  private final Map<Schema, SpecificDatumWriter<T>> writers = new ConcurrentHashMap<>();
  private final Map<Target, WriteSchema> writeSchemas = new ConcurrentHashMap<>();

  /** A record schema on a topic. */
  private record Target(String topic, Schema recordSchema) {}

  /** The schema the payload is written with, and its registry id. */
  private record WriteSchema(int id, Schema schema) {}

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
    // Looked up outside computeIfAbsent: the registry call may be slow or fail.
    Target target = new Target(topic, schema);
    WriteSchema write = writeSchemas.get(target);
    if (write == null) {
      write = writeSchema(topic, schema);
      writeSchemas.put(target, write);
    }
    try {
      WireBuffer buffer = BUFFERS.get();
      buffer.reset();
      buffer.write(MAGIC_BYTE);
      buffer.writeInt(write.id());
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(buffer, buffer.encoder);
      buffer.encoder = encoder;
      writers.computeIfAbsent(schema, AvroSerializer::customCodingWriter).write(record, encoder);
      encoder.flush();
      byte[] bytes = buffer.toByteArray();
      return write.schema().equals(schema) ? bytes : transcode(bytes, schema, write.schema());
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          "cannot serialize " + schema.getFullName() + " for topic " + topic + ": " + e, e);
    }
  }

  /**
   * A writer whose model uses the generated classes' custom coders: a record class that has them
   * (every record without a logical type, e.g. PortSample, Counter, PortRates, CounterRate) writes
   * its fields with straight-line generated code instead of Avro's reflective per-field path. The
   * bytes are the same (AvroSerializerTest); Avro leaves this off by default
   * (org.apache.avro.specific.use_custom_coders). The model keeps the conversions of the class's
   * own model, so logical types (timestamp-millis as Instant) still convert.
   */
  static <T extends SpecificRecord> SpecificDatumWriter<T> customCodingWriter(Schema schema) {
    SpecificData own = SpecificData.getForSchema(schema);
    SpecificData model = new SpecificData(own.getClassLoader());
    own.getConversions().forEach(model::addLogicalTypeConversion);
    model.setCustomCoders(true);
    return new SpecificDatumWriter<>(schema, model);
  }

  /**
   * A per-thread growable buffer and buffered encoder, reused from record to record: no
   * synchronized stream, no encoder allocated per record (a producer or stream thread serializes
   * thousands of records per second).
   */
  private static final ThreadLocal<WireBuffer> BUFFERS = ThreadLocal.withInitial(WireBuffer::new);

  private static final class WireBuffer extends OutputStream {
    private byte[] bytes = new byte[1024];
    private int size;
    BinaryEncoder encoder;

    void reset() {
      size = 0;
    }

    void writeInt(int value) {
      ensure(4);
      bytes[size++] = (byte) (value >>> 24);
      bytes[size++] = (byte) (value >>> 16);
      bytes[size++] = (byte) (value >>> 8);
      bytes[size++] = (byte) value;
    }

    @Override
    public void write(int b) {
      ensure(1);
      bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, bytes, size, len);
      size += len;
    }

    private void ensure(int more) {
      if (size + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
      }
    }

    byte[] toByteArray() {
      return Arrays.copyOf(bytes, size);
    }
  }

  private WriteSchema writeSchema(String topic, Schema schema) {
    String subject = config.subjectNaming().subject(topic, isKey, schema);
    try {
      if (config.useLatestVersion()) {
        SchemaRegistryClient.RegisteredSchema latest = registry.latest(subject);
        if (!canRead(latest.schema(), schema)) {
          throw new SerializationException(
              "latest version "
                  + latest.version()
                  + " of "
                  + subject
                  + " (id "
                  + latest.id()
                  + ") cannot represent "
                  + schema.getFullName()
                  + " records (use.latest.version=true)");
        }
        return new WriteSchema(latest.id(), latest.schema());
      }
      if (config.autoRegisterSchemas()) {
        return new WriteSchema(registry.register(subject, schema), schema);
      }
      return new WriteSchema(registry.lookup(subject, schema), schema);
    } catch (SchemaRegistryException e) {
      throw new SerializationException(
          "schema registry refused "
              + schema.getFullName()
              + " for subject "
              + subject
              + (config.autoRegisterSchemas() || config.useLatestVersion()
                  ? ""
                  : " (auto.register.schemas=false: the schema must be registered beforehand)")
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static boolean canRead(Schema reader, Schema writer) {
    return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
        == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
  }

  /** Re-encodes Avro binary written with {@code from} as binary of {@code to} (Avro resolution). */
  private static byte[] transcode(byte[] wire, Schema from, Schema to) throws IOException {
    Object datum =
        new GenericDatumReader<>(from, to)
            .read(null, DecoderFactory.get().binaryDecoder(wire, 5, wire.length - 5, null));
    ByteArrayOutputStream out = new ByteArrayOutputStream(wire.length + 16);
    out.write(wire, 0, 5);
    BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
    new GenericDatumWriter<>(to).write(datum, encoder);
    encoder.flush();
    return out.toByteArray();
  }
}
