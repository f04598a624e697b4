package io.fabricpulse.collectors.ethtool;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test access to the shared real samples and to this module's synthetic fixtures. */
public final class SampleFiles {
  private SampleFiles() {}

  /**
   * The shared samples directory: the {@code fabricpulse.samples} property set by surefire, else
   * {@code ../shared/samples} next to the repository root (the first ancestor of user.dir holding
   * both pom.xml and .mvn).
   */
  public static Path samplesDir() {
    String configured = System.getProperty("fabricpulse.samples");
    if (configured != null && Files.isDirectory(Path.of(configured))) {
      return Path.of(configured);
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        return dir.resolve("../shared/samples").normalize();
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "shared samples not found from " + System.getProperty("user.dir"));
  }

  public static Path sample(String relative) {
    return samplesDir().resolve(relative);
  }

  public static String sampleText(String relative) {
    try {
      return Files.readString(sample(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A fixture under src/test/resources, e.g. "ethtool/mlx5-...-synthetic.txt". */
  public static String resourceText(String name) {
    try (InputStream in = SampleFiles.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
