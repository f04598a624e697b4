package io.fabricpulse.bridges.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where a secret (WeCom key, DingTalk access token or signing secret) comes from: an environment
 * variable or a file, never bridge.yaml itself and never the command line. {@link #toString()}
 * names the source only, so a secret cannot end up in a log line by accident.
 *
 * @param env the environment variable, or null
 * @param file the file whose content (trimmed) is the secret, or null
 * @param origin {@code file:line: key} of the setting in bridge.yaml (e.g. {@code bridge.yaml:4:
 *     robots[0].key_env}), for the error when the secret is missing; null when not read from a file
 */
public record SecretRef(String env, Path file, String origin) {

  public SecretRef(String env, Path file) {
    this(env, file, null);
  }

  /** The secret, or an exception naming the source (never the value) when it is missing. */
  public String resolve(Map<String, String> environment) throws IOException {
    if (env != null) {
      String value = environment.get(env);
      if (value == null || value.isBlank()) {
        throw new IOException("environment variable " + env + " is not set");
      }
      return value.trim();
    }
    String value = Files.readString(file, StandardCharsets.UTF_8).trim();
    if (value.isEmpty()) {
      throw new IOException(file + " is empty");
    }
    return value;
  }

  @Override
  public String toString() {
    return env != null ? "$" + env : "file " + file;
  }
}
