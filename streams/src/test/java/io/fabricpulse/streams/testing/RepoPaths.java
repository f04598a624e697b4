package io.fabricpulse.streams.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Paths inside the repository, found by walking up from user.dir to the reactor root. */
public final class RepoPaths {

  private RepoPaths() {}

  public static Path root() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("no reactor root above " + System.getProperty("user.dir"));
  }

  public static Path alertRules() {
    return root().resolve("alert-rules");
  }
}
