package io.fabricpulse.streams;

import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;

/**
 * Where topologies get their Avro value serdes from, so the same factory serves production (a real
 * Schema Registry URL) and tests ({@code mock://<scope>}).
 */
public interface ValueSerdes {

  <T extends SpecificRecord> Serde<T> forValues(Class<T> type);

  /** A reader of whichever of {@code types} a record was written as (rolling upgrades). */
  Deserializer<SpecificRecord> oneOf(List<Class<? extends SpecificRecord>> types);

  /** Serdes against the registry at {@code registryUrl} ({@code mock://scope} for in-process). */
  static ValueSerdes registry(String registryUrl) {
    return new ValueSerdes() {
      @Override
      public <T extends SpecificRecord> Serde<T> forValues(Class<T> type) {
        return AvroSerde.forValues(type, registryUrl);
      }

      @Override
      public Deserializer<SpecificRecord> oneOf(List<Class<? extends SpecificRecord>> types) {
        return AvroOneOfDeserializer.forValues(
            types, Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl));
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

      @Override
      public Deserializer<SpecificRecord> oneOf(List<Class<? extends SpecificRecord>> types) {
        return AvroOneOfDeserializer.forValues(types, copy);
      }
    };
  }
}
