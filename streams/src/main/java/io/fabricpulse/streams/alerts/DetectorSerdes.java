package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.serde.AvroSerde;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;

/**
 * The value serdes detectors use, all configured with the same schema-registry settings (one
 * instance per topology; {@code mock://<scope>} in tests and the embedded demo).
 */
public final class DetectorSerdes {

  private final Map<String, ?> registryConfig;
  private final Map<Class<?>, Serde<?>> cache = new HashMap<>();

  public DetectorSerdes(Map<String, ?> registryConfig) {
    this.registryConfig = Map.copyOf(registryConfig);
  }

  /** Serdes for {@code schema.registry.url} = {@code registryUrl}, e.g. {@code mock://test}. */
  public static DetectorSerdes forRegistry(String registryUrl) {
    return new DetectorSerdes(Map.of("schema.registry.url", registryUrl));
  }

  @SuppressWarnings("unchecked")
  public synchronized <T extends SpecificRecord> Serde<T> value(Class<T> type) {
    return (Serde<T>) cache.computeIfAbsent(type, t -> AvroSerde.forValues(type, registryConfig));
  }

  /** A reader of whichever of {@code types} a record was written as (rolling upgrades). */
  public Deserializer<SpecificRecord> oneOf(List<Class<? extends SpecificRecord>> types) {
    return AvroOneOfDeserializer.forValues(types, registryConfig);
  }

  public Serde<Alert> alert() {
    return value(Alert.class);
  }

  public Serde<CounterRates> rates() {
    return value(CounterRates.class);
  }
}
