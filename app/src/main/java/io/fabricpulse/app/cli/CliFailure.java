package io.fabricpulse.app.cli;

/**
 * A failure the user can fix, with the one line that says what and why ({@code collector.yaml:3:
 * ...}, {@code x.jsonl: cannot read: Permission denied}) and the exit code. {@link
 * io.fabricpulse.app.FabricPulse} prints the message without a stack trace.
 */
public final class CliFailure extends RuntimeException {
  private final int exitCode;

  public CliFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
