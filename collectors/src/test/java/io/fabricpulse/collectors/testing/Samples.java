package io.fabricpulse.collectors.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Test access to the real captures in /work/shared/samples and to the synthetic fixtures under
 * src/test/resources. The samples directory is the {@code fabricpulse.samples} system property set
 * by Surefire, else {@code ../shared/samples} next to the repository root (the first directory
 * upwards from user.dir holding both pom.xml and .mvn), as HELPERS.md prescribes.
 */
public final class Samples {
  private Samples() {}

  /** The shared samples directory. */
  public static Path dir() {
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
    throw new IllegalStateException(
        "shared samples not found from "
            + System.getProperty("user.dir")
            + "; set -Dfabricpulse.samples");
  }

  /** A real capture, e.g. {@code "ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"}. */
  public static Path path(String relative) {
    return dir().resolve(relative);
  }

  /** The text of a real capture. */
  public static String read(String relative) {
    try {
      return Files.readString(path(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The text of a fixture under src/test/resources, e.g. {@code "nvsmi/x-synthetic.txt"}. */
  public static String resource(String name) {
    try (InputStream in = Samples.class.getClassLoader().getResourceAsStream(strip(name))) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The file of a fixture under src/test/resources (for code that reads files itself). */
  public static Path resourcePath(String name) {
    URL url = Samples.class.getClassLoader().getResource(strip(name));
    if (url == null) {
      throw new IllegalArgumentException("no test resource " + name);
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Unpacks a real {@code sysfs_ib/*.ttar.txt} capture into {@code into} and returns the directory
   * holding its {@code class/infiniband} (what {@code --sysfs-root} takes).
   */
  public static Path unpackSysfs(String sampleName, Path into) {
    try {
      Ttar.unpack(path("sysfs_ib/" + sampleName), into);
      try (Stream<Path> walk = Files.walk(into)) {
        return walk.filter(p -> p.endsWith("class/infiniband"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException(sampleName + " has no class/infiniband"))
            .getParent()
            .getParent();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String strip(String name) {
    return name.startsWith("/") ? name.substring(1) : name;
  }
}
