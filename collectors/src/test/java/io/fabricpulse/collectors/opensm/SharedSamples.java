package io.fabricpulse.collectors.opensm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Finds the real captures in /work/shared/samples: the {@code fabricpulse.samples} system property
 * set by Surefire, else {@code ../shared/samples} next to the repository root (the first directory
 * upwards from user.dir holding both pom.xml and .mvn).
 */
public final class SharedSamples {
  private SharedSamples() {}

  public static Path root() {
    String property = System.getProperty("fabricpulse.samples");
    if (property != null && Files.isDirectory(Paths.get(property))) {
      return Paths.get(property);
    }
    Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        return dir.resolveSibling("shared").resolve("samples");
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("samples directory not found");
  }

  public static Path path(String relative) {
    return root().resolve(relative);
  }

  public static String read(String relative) {
    try {
      return Files.readString(path(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A synthetic fixture from src/test/resources. */
  public static String resource(String name) {
    try (var in = SharedSamples.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
