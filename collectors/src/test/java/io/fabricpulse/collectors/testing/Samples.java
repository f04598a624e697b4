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
 * Test access to the real captures in {@code collectors/testdata/<source>/} (one folder per
 * collector package; origins and licenses in collectors/testdata/SOURCES.md) and to the synthetic
 * fixtures under src/test/resources. The testdata directory is the {@code fabricpulse.testdata}
 * system property set by Surefire, else {@code collectors/testdata} under the repository root (the
 * first directory upwards from user.dir holding both pom.xml and .mvn), so tests also run from an
 * IDE.
 */
public final class Samples {
  private Samples() {}

  /** The directory of the real captures, {@code collectors/testdata}. */
  public static Path dir() {
    String property = System.getProperty("fabricpulse.testdata");
    if (property != null) {
      Path dir = Path.of(property);
      if (!Files.isDirectory(dir)) {
        throw new IllegalStateException("-Dfabricpulse.testdata=" + property + " is no directory");
      }
      return dir;
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        Path testdata = dir.resolve("collectors/testdata");
        if (Files.isDirectory(testdata)) {
          return testdata;
        }
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "collectors/testdata not found above "
            + System.getProperty("user.dir")
            + "; set -Dfabricpulse.testdata");
  }

  /**
   * A real capture by its name under collectors/testdata, e.g. {@code
   * "ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"}. A missing capture fails with the folder that
   * holds a file of that name, if any (the captures moved from source-less folders such as {@code
   * gpu/} into one folder per collector).
   */
  public static Path path(String relative) {
    Path file = dir().resolve(relative);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "no capture " + relative + " in " + dir() + hint(file.getFileName().toString()));
    }
    return file;
  }

  private static String hint(String fileName) {
    try (Stream<Path> walk = Files.walk(dir())) {
      return walk.filter(p -> p.getFileName().toString().equals(fileName))
          .findFirst()
          .map(p -> "; did you mean " + dir().relativize(p).toString().replace('\\', '/') + "?")
          .orElse("");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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

  /**
   * The file of a fixture under src/test/resources (for code that reads files itself). Another
   * module's tests read these fixtures from the collectors test jar under {@code mvn verify}: a
   * resource inside a jar is copied to a temporary file of the same name first.
   */
  public static Path resourcePath(String name) {
    URL url = Samples.class.getClassLoader().getResource(strip(name));
    if (url == null) {
      throw new IllegalArgumentException("no test resource " + name);
    }
    try {
      if (!"jar".equals(url.getProtocol())) {
        return Path.of(url.toURI());
      }
      Path dir = Files.createTempDirectory("fabricpulse-fixture");
      Path file = dir.resolve(Path.of(strip(name)).getFileName().toString());
      try (InputStream in = url.openStream()) {
        Files.copy(in, file);
      }
      file.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return file;
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Unpacks a real {@code sysfs/*.ttar.txt} capture into {@code into} and returns the directory
   * holding its {@code class/infiniband} (what {@code --sysfs-root} takes).
   */
  public static Path unpackSysfs(String sampleName, Path into) {
    try {
      Ttar.unpack(path("sysfs/" + sampleName), into);
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
