package io.fabricpulse.collectors.opensm;

/**
 * What one run of {@code sminfo} produced.
 *
 * @param exitCode process exit code; infiniband-diags exits with -1 (255) after "iberror"
 */
public record SminfoOutput(int exitCode, String stdout, String stderr) {

  /** A successful run that printed {@code stdout}. */
  public static SminfoOutput ok(String stdout) {
    return new SminfoOutput(0, stdout, "");
  }
}
