package io.fabricpulse.schemas.serde;

import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import io.fabricpulse.schemas.registry.RestSchemaRegistryClient;
import io.fabricpulse.schemas.registry.SchemaRegistryClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Configuration of the serde, with Confluent's key names so that existing client configs work
 * unchanged (docs.confluent.io, "Schema Registry serializer and deserializer configuration").
 */
public record AvroSerdeConfig(
    String registryUrl,
    boolean autoRegisterSchemas,
    boolean useLatestVersion,
    boolean specificAvroReader,
    String basicAuthUserInfo,
    SubjectNaming subjectNaming) {

  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";
  public static final String USE_LATEST_VERSION = "use.latest.version";
  public static final String SPECIFIC_AVRO_READER = "specific.avro.reader";
  public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
  public static final String VALUE_SUBJECT_NAME_STRATEGY = "value.subject.name.strategy";
  public static final String KEY_SUBJECT_NAME_STRATEGY = "key.subject.name.strategy";
  public static final String MOCK_SCHEME = "mock://";

  /** Reads the Confluent keys; defaults are Confluent's (auto-register on, latest off). */
  public static AvroSerdeConfig from(Map<String, ?> configs) {
    Object value = configs.get(SCHEMA_REGISTRY_URL);
    // Confluent accepts a list as well as a comma-separated string.
    String url =
        value instanceof Collection<?> list
            ? list.stream().map(Object::toString).collect(Collectors.joining(","))
            : value == null ? null : value.toString();
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException(
          SCHEMA_REGISTRY_URL + " is required (e.g. http://registry:8081 or mock://demo)");
    }
    return new AvroSerdeConfig(
        url.trim(),
        bool(configs.get(AUTO_REGISTER_SCHEMAS), true),
        bool(configs.get(USE_LATEST_VERSION), false),
        bool(configs.get(SPECIFIC_AVRO_READER), true),
        configs.get(BASIC_AUTH_USER_INFO) == null
            ? null
            : configs.get(BASIC_AUTH_USER_INFO).toString(),
        SubjectNaming.from(configs));
  }

  /**
   * Whether {@code key} is a setting of this serde rather than of a Kafka client: {@code
   * schema.registry.*}, {@code basic.auth.*}, {@code auto.register.schemas}, {@code
   * use.latest.version}, {@code specific.avro.reader} and the subject name strategies.
   */
  public static boolean isSerdeSetting(String key) {
    return key.startsWith("schema.registry.")
        || key.startsWith("basic.auth.")
        || key.equals(AUTO_REGISTER_SCHEMAS)
        || key.equals(USE_LATEST_VERSION)
        || key.equals(SPECIFIC_AVRO_READER)
        || key.equals(VALUE_SUBJECT_NAME_STRATEGY)
        || key.equals(KEY_SUBJECT_NAME_STRATEGY);
  }

  /**
   * The serde settings ({@link #isSerdeSetting}) among {@code settings}, e.g. client properties.
   */
  public static Map<String, Object> serdeSettings(Map<?, ?> settings) {
    Map<String, Object> out = new java.util.TreeMap<>();
    settings.forEach(
        (key, value) -> {
          if (isSerdeSetting(key.toString())) {
            out.put(key.toString(), value);
          }
        });
    return out;
  }

  /** The registry behind {@code schema.registry.url}: in-process for mock://, REST otherwise. */
  public SchemaRegistryClient client() {
    if (registryUrl.startsWith(MOCK_SCHEME)) {
      return InMemorySchemaRegistry.forScope(registryUrl.substring(MOCK_SCHEME.length()));
    }
    List<String> urls = Arrays.stream(registryUrl.split(",")).map(String::trim).toList();
    return new RestSchemaRegistryClient(urls, basicAuthUserInfo, Duration.ofSeconds(30));
  }

  private static boolean bool(Object value, boolean fallback) {
    return value == null ? fallback : Boolean.parseBoolean(value.toString());
  }

  /** Never prints the credentials. */
  @Override
  public String toString() {
    return "AvroSerdeConfig[url="
        + registryUrl.replaceAll("//[^/@,]*@", "//***@")
        + ", autoRegister="
        + autoRegisterSchemas
        + ", useLatest="
        + useLatestVersion
        + ", basicAuth="
        + (basicAuthUserInfo == null ? "none" : "***")
        + "]";
  }
}
