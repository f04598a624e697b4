package io.fabricpulse.streams;

import io.fabricpulse.schemas.serde.AvroSerde;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;

/**
 * Where topologies get their Avro value serdes from, so the same factory serves production (a real
 * Schema Registry URL) and tests ({@code mock://<scope>}).
 */
public interface ValueSerdes {

  <T extends SpecificRecord> Serde<T> forValues(Class<T> type);

  /** Serdes against the registry at {@code registryUrl} ({@code mock://scope} for in-process). */
  static ValueSerdes registry(String registryUrl) {
    return new ValueSerdes() {
      @Override
      public <T extends SpecificRecord> Serde<T> forValues(Class<T> type) {
        return AvroSerde.forValues(type, registryUrl);
      }
    };
  }

  /** Serdes from a full Confluent-style config map (schema.registry.url, basic.auth, ...). */
  static ValueSerdes registry(Map<String, ?> config) {
    Map<String, ?> copy = Map.copyOf(config);
    return new ValueSerdes() {
      @Override
      public <T extends SpecificRecord> Serde<T> forValues(Class<T> type) {
        return AvroSerde.forValues(type, copy);
      }
    };
  }
}
