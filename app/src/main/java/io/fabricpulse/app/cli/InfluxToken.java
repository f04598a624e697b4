package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.core.IoReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The store's API token: {@code INFLUX_TOKEN}, else the content of the file {@code
 * INFLUX_TOKEN_FILE} names (Docker secrets, systemd credentials), trailing newline removed. Never
 * from the command line, never printed.
 */
final class InfluxToken {

  static final String VARIABLE = "INFLUX_TOKEN";
  static final String FILE_VARIABLE = "INFLUX_TOKEN_FILE";

  private InfluxToken() {}

  /**
   * @throws CliFailure (usage) when both are set or the file cannot be read
   */
  static char[] fromEnvironment(Map<String, String> env) {
    String token = env.get(VARIABLE);
    String file = env.get(FILE_VARIABLE);
    if (token != null && file != null) {
      throw new CliFailure(
          ExitCodes.USAGE, "set " + VARIABLE + " or " + FILE_VARIABLE + ", not both");
    }
    if (file == null) {
      return token == null ? new char[0] : token.toCharArray();
    }
    try {
      String content = Files.readString(Path.of(file), StandardCharsets.UTF_8);
      return content.strip().toCharArray();
    } catch (IOException e) {
      throw new CliFailure(
          ExitCodes.USAGE, file + ": cannot read " + FILE_VARIABLE + ": " + IoReason.of(e));
    }
  }
}
