package io.fabricpulse.collectors.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a node tool (no shell) with a timeout. Output goes to temporary files rather than pipes, so
 * a tool that prints more than a pipe buffer cannot block, and a hung tool (a wedged driver ioctl)
 * is killed after the timeout instead of stalling the collector.
 */
public final class CommandRunner {

  /** What a finished command printed. */
  public record Output(int exitCode, String stdout, String stderr) {}

  private CommandRunner() {}

  /**
   * @throws IOException when the command cannot start or runs longer than {@code timeout}
   */
  public static Output run(List<String> command, Duration timeout)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("fabricpulse-cmd-", ".out");
    Path err = Files.createTempFile("fabricpulse-cmd-", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      boolean finished;
      try {
        finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        throw e;
      }
      if (!finished) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + ": no answer within " + timeout);
      }
      return new Output(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Runs the command and returns its stdout; a non-zero exit is an IOException with stderr. */
  public static String stdoutOf(List<String> command, Duration timeout)
      throws IOException, InterruptedException {
    Output output = run(command, timeout);
    if (output.exitCode() != 0) {
      String reason = output.stderr().isBlank() ? output.stdout() : output.stderr();
      throw new IOException(
          String.join(" ", command) + ": exit " + output.exitCode() + ": " + firstLine(reason));
    }
    return output.stdout();
  }

  private static String firstLine(String text) {
    String stripped = text.strip();
    int newline = stripped.indexOf('\n');
    return newline < 0 ? stripped : stripped.substring(0, newline);
  }
}
