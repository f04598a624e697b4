package io.fabricpulse.app.cli;

/**
 * The exit codes of every {@code fabricpulse} command (README, Commands; each command's help says
 * what they mean for it).
 */
public final class ExitCodes {
  /** Everything asked was done and every input was read in full. */
  public static final int OK = 0;

  /**
   * Findings (invalid rules) or partial input: some lines, files or sources were skipped, or the
   * run failed after it started; what could be read was processed.
   */
  public static final int PARTIAL = 1;

  /** A usage error, or input or configuration that could not be read or held nothing usable. */
  public static final int USAGE = 2;

  private ExitCodes() {}
}
