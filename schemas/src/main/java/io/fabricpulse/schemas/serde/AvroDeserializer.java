package io.fabricpulse.schemas.serde;

import io.fabricpulse.schemas.registry.SchemaRegistryClient;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads the Confluent wire format into a specific record class. The writer schema comes from the
 * registry by the id in the payload, and Avro resolution maps it onto the reader class, so records
 * written with an older (or newer, compatible) schema still decode.
 */
public class AvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {

  private final Class<T> type;
  private final Schema readerSchema;
  private SchemaRegistryClient registry;
  private final Map<Integer, SpecificDatumReader<T>> readers = new ConcurrentHashMap<>();

  public AvroDeserializer(Class<T> type) {
    this.type = type;
    this.readerSchema = SpecificData.get().getSchema(type);
  }

  public AvroDeserializer(Class<T> type, SchemaRegistryClient registry) {
    this(type);
    this.registry = registry;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    this.registry = AvroSerdeConfig.from(configs).client();
  }

  @Override
  public T deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    int id = schemaIdOf(topic, data);
    try {
      SpecificDatumReader<T> reader = readers.computeIfAbsent(id, this::readerFor);
      BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, 5, data.length - 5, null);
      return reader.read(null, decoder);
    } catch (RuntimeException | java.io.IOException e) {
      throw new SerializationException(
          "topic "
              + topic
              + ": cannot decode "
              + type.getSimpleName()
              + " written with schema id "
              + id
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The schema id of a Confluent wire-format payload: magic byte 0, then the 4-byte big-endian id.
   *
   * @throws SerializationException naming the topic when the bytes are not in that format
   */
  static int schemaIdOf(String topic, byte[] data) {
    if (data.length < 5 || data[0] != AvroSerializer.MAGIC_BYTE) {
      throw new SerializationException(
          "topic "
              + topic
              + ": not Confluent Avro wire format (expected magic byte 0 and a 4-byte schema id, got "
              + data.length
              + " bytes"
              + (data.length > 0 ? " starting with " + data[0] : "")
              + ")");
    }
    return ByteBuffer.wrap(data, 1, 4).getInt();
  }

  /**
   * The reader of records written with schema {@code id}. Avro's resolution alone would map any
   * record whose fields happen to fit onto the reader class (e.g. a {@code GpuXid} written to the
   * GPU sample topic), so a writer of another record name (and no alias of the reader) is refused.
   */
  private SpecificDatumReader<T> readerFor(int id) {
    Schema writer = registry.getById(id);
    if (!writer.getFullName().equals(readerSchema.getFullName())
        && !readerSchema.getAliases().contains(writer.getFullName())) {
      throw new SerializationException(
          "schema id "
              + id
              + " is "
              + writer.getFullName()
              + ", not "
              + readerSchema.getFullName());
    }
    return new SpecificDatumReader<>(writer, readerSchema);
  }
}
