package io.fabricpulse.streams.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real captures in {@code collectors/testdata/<source>/} (origins and licenses in
 * collectors/testdata/SOURCES.md): the {@code fabricpulse.testdata} system property set by
 * Surefire, else {@code collectors/testdata} under the repository root.
 */
public final class Samples {

  private Samples() {}

  /** The directory of the real captures, {@code collectors/testdata}. */
  public static Path root() {
    String property = System.getProperty("fabricpulse.testdata");
    Path dir =
        property != null ? Path.of(property) : RepoPaths.root().resolve("collectors/testdata");
    if (!Files.isDirectory(dir)) {
      throw new IllegalStateException("no testdata directory " + dir);
    }
    return dir;
  }

  /** The text of a real capture, e.g. {@code "nvsmi/nvgpuexp-h100-query-gpu-ecc-csv.txt"}. */
  public static String read(String relative) {
    try {
      return Files.readString(root().resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
