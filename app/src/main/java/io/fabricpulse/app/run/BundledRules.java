package io.fabricpulse.app.run;

import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The default rules of {@code alert-rules/}, packaged into the jar, loaded the same way as a rules
 * directory given on the command line (so their errors name the same files and lines).
 */
public final class BundledRules {
  static final String RESOURCE_DIR = "alert-rules";

  private BundledRules() {}

  /** Loads {@code dir}, or the bundled defaults when {@code dir} is null. */
  public static RuleSet load(Path dir, Path scratch) throws IOException, RuleValidationException {
    return RuleSet.load(dir != null ? dir : extract(scratch));
  }

  /** Copies the bundled rule files into {@code scratch}/alert-rules and returns that folder. */
  public static Path extract(Path scratch) throws IOException {
    URL url = BundledRules.class.getClassLoader().getResource(RESOURCE_DIR);
    if (url == null) {
      throw new IOException("the jar has no bundled " + RESOURCE_DIR + "/ (build problem)");
    }
    URI uri;
    try {
      uri = url.toURI();
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    if ("file".equals(uri.getScheme())) {
      return Path.of(uri);
    }
    Path target = scratch.resolve(RESOURCE_DIR);
    Files.createDirectories(target);
    try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of());
        Stream<Path> files = Files.list(jar.getPath(RESOURCE_DIR))) {
      for (Path file : files.toList()) {
        try (InputStream in = Files.newInputStream(file)) {
          Files.copy(
              in,
              target.resolve(file.getFileName().toString()),
              StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return target;
  }
}
