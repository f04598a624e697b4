package io.fabricpulse.app.cli;

import io.fabricpulse.app.interactive.QueryApi;
import io.fabricpulse.collectors.core.IoReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The bearer token of the query API, for {@code streams} (required of every request) and {@code
 * query --api} (sent): the content of {@code file} (trailing newline removed), else {@code
 * FABRICPULSE_QUERY_TOKEN}; none when neither is set. Never from the command line, never printed.
 */
final class QueryToken {

  private QueryToken() {}

  /**
   * @param option the option that names {@code file}, for messages
   * @throws CliFailure (usage) when the file cannot be read or holds no token
   */
  static char[] read(Path file, String option, Map<String, String> env) {
    if (file == null) {
      String token = env.get(QueryApi.TOKEN_VARIABLE);
      return token == null ? new char[0] : token.strip().toCharArray();
    }
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new CliFailure(ExitCodes.USAGE, option + " " + file + ": " + IoReason.of(e));
    }
    if (content.isEmpty()) {
      throw new CliFailure(ExitCodes.USAGE, option + " " + file + ": the file is empty");
    }
    return content.toCharArray();
  }
}
