package io.fabricpulse.schemas.serde;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** Serializer and deserializer of one specific record type, configured with Confluent's keys. */
public final class AvroSerde<T extends SpecificRecord> extends Serdes.WrapperSerde<T> {

  public AvroSerde(Class<T> type) {
    super(new AvroSerializer<>(), new AvroDeserializer<>(type));
  }

  /** A value serde already configured for {@code registryUrl} (e.g. {@code mock://demo}). */
  public static <T extends SpecificRecord> Serde<T> forValues(Class<T> type, String registryUrl) {
    AvroSerde<T> serde = new AvroSerde<>(type);
    serde.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl), false);
    return serde;
  }

  /** A value serde configured from a full Confluent-style config map. */
  public static <T extends SpecificRecord> Serde<T> forValues(
      Class<T> type, Map<String, ?> config) {
    AvroSerde<T> serde = new AvroSerde<>(type);
    serde.configure(config, false);
    return serde;
  }
}
