package io.fabricpulse.schemas.serde;

import io.fabricpulse.schemas.registry.SchemaRegistryClient;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
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
 * Reads the Confluent wire format into whichever of several record classes the writer schema names
 * (by full name), so one topic can carry the records of two contract versions during a rolling
 * upgrade: e.g. fabric.raw.port-counters with 0.1 {@code PortCounters} from collectors not yet
 * upgraded and 0.2 {@code NodeCounters} from upgraded ones. A record of any other type is a {@link
 * SerializationException} naming the types this reader accepts.
 */
public final class AvroOneOfDeserializer implements Deserializer<SpecificRecord> {

  private final Map<String, Class<? extends SpecificRecord>> types = new LinkedHashMap<>();
  private SchemaRegistryClient registry;
  private final Map<Integer, SpecificDatumReader<SpecificRecord>> readers =
      new ConcurrentHashMap<>();

  public AvroOneOfDeserializer(List<Class<? extends SpecificRecord>> types) {
    for (Class<? extends SpecificRecord> type : types) {
      this.types.put(SpecificData.get().getSchema(type).getFullName(), type);
    }
  }

  public AvroOneOfDeserializer(
      List<Class<? extends SpecificRecord>> types, SchemaRegistryClient registry) {
    this(types);
    this.registry = registry;
  }

  /** A reader of {@code types} already configured from a Confluent-style config map. */
  public static AvroOneOfDeserializer forValues(
      List<Class<? extends SpecificRecord>> types, Map<String, ?> config) {
    AvroOneOfDeserializer deserializer = new AvroOneOfDeserializer(types);
    deserializer.configure(config, false);
    return deserializer;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    this.registry = AvroSerdeConfig.from(configs).client();
  }

  @Override
  public SpecificRecord deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    int id = AvroDeserializer.schemaIdOf(topic, data);
    try {
      SpecificDatumReader<SpecificRecord> reader = readers.computeIfAbsent(id, this::readerFor);
      BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, 5, data.length - 5, null);
      return reader.read(null, decoder);
    } catch (SerializationException e) {
      throw e;
    } catch (RuntimeException | IOException e) {
      throw new SerializationException(
          "topic "
              + topic
              + ": cannot decode a record written with schema id "
              + id
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private SpecificDatumReader<SpecificRecord> readerFor(int id) {
    Schema writer = registry.getById(id);
    Class<? extends SpecificRecord> type = types.get(writer.getFullName());
    if (type == null) {
      throw new SerializationException(
          "schema id "
              + id
              + " is "
              + writer.getFullName()
              + "; this reader accepts "
              + String.join(", ", types.keySet()));
    }
    return new SpecificDatumReader<>(writer, SpecificData.get().getSchema(type));
  }
}
