package io.fabricpulse.schemas.serde;

import java.util.Map;
import org.apache.avro.Schema;

/**
 * How the serializer names the registry subject a schema is registered under, with the names and
 * meaning of Confluent's subject name strategies (docs.confluent.io, "Schema Registry: subject name
 * strategy"): {@code TopicNameStrategy} = {@code <topic>-value}, {@code RecordNameStrategy} = the
 * record's full name, {@code TopicRecordNameStrategy} = {@code <topic>-<record full name>}. The
 * settings {@code value.subject.name.strategy} and {@code key.subject.name.strategy} take the short
 * name or Confluent's class name ({@code io.confluent.kafka.serializers.subject.*}).
 *
 * <p>fabricpulse defaults the values to TopicRecordNameStrategy: contract 0.2 replaced the per-port
 * records of the counter topics by per-node records, and with one subject per topic the registry
 * would refuse the new type on a topic that has the old one. Keys stay TopicNameStrategy.
 */
public record SubjectNaming(Strategy values, Strategy keys) {

  /** The three strategies Confluent defines. */
  public enum Strategy {
    TopicNameStrategy,
    RecordNameStrategy,
    TopicRecordNameStrategy;

    static Strategy parse(String key, Object value, Strategy fallback) {
      if (value == null || value.toString().isBlank()) {
        return fallback;
      }
      String name = value.toString().trim();
      String simple = name.substring(name.lastIndexOf('.') + 1);
      for (Strategy s : values()) {
        if (s.name().equals(simple)) {
          return s;
        }
      }
      throw new IllegalArgumentException(
          key
              + ": unknown subject name strategy '"
              + name
              + "' (TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy)");
    }
  }

  public static final SubjectNaming DEFAULT =
      new SubjectNaming(Strategy.TopicRecordNameStrategy, Strategy.TopicNameStrategy);

  static SubjectNaming from(Map<String, ?> configs) {
    return new SubjectNaming(
        Strategy.parse(
            AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY,
            configs.get(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY),
            DEFAULT.values()),
        Strategy.parse(
            AvroSerdeConfig.KEY_SUBJECT_NAME_STRATEGY,
            configs.get(AvroSerdeConfig.KEY_SUBJECT_NAME_STRATEGY),
            DEFAULT.keys()));
  }

  /** The subject of {@code schema} written to {@code topic} as key or value. */
  public String subject(String topic, boolean isKey, Schema schema) {
    Strategy strategy = isKey ? keys : values;
    return switch (strategy) {
      case TopicNameStrategy -> topic + (isKey ? "-key" : "-value");
      case RecordNameStrategy -> schema.getFullName();
      case TopicRecordNameStrategy -> topic + "-" + schema.getFullName();
    };
  }
}
