package io.fabricpulse.collectors.sysfs;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the real captures of /work/shared/samples are (HELPERS.md: property, then walk up). */
final class Samples {
  private Samples() {}

  static Path dir() {
    String property = System.getProperty("fabricpulse.samples");
    if (property != null && Files.isDirectory(Path.of(property))) {
      return Path.of(property);
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        Path samples = dir.resolve("../shared/samples").normalize();
        if (Files.isDirectory(samples)) {
          return samples;
        }
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("samples directory not found; set -Dfabricpulse.samples");
  }

  static Path file(String relative) {
    return dir().resolve(relative);
  }
}
