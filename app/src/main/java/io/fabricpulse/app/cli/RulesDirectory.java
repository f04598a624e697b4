package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.core.IoReason;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks a {@code --rules} or {@code rules check} directory before it is loaded: a missing folder,
 * a file, or a folder without rule files is a usage error, not a silent run with no rules.
 */
final class RulesDirectory {
  private RulesDirectory() {}

  /** Throws {@link CliFailure} (exit 2) unless {@code dir} holds at least one *.yaml or *.yml. */
  static void require(Path dir) {
    if (!Files.exists(dir)) {
      throw unusable(dir, "No such file or directory");
    }
    if (!Files.isDirectory(dir)) {
      throw unusable(dir, "Not a directory");
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.{yaml,yml}")) {
      if (!files.iterator().hasNext()) {
        throw new CliFailure(
            ExitCodes.USAGE, dir + ": no rule files (*.yaml, *.yml): nothing would be detected");
      }
    } catch (IOException e) {
      throw unusable(dir, IoReason.of(e));
    }
  }

  private static CliFailure unusable(Path dir, String reason) {
    return new CliFailure(ExitCodes.USAGE, dir + ": cannot read rules: " + reason);
  }
}
