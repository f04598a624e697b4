package io.fabricpulse.app.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * {@code --version}: the project version and the git commit the jar was built from, written into
 * {@code version.properties} by the build (Maven resource filtering, the commit from {@code git
 * rev-parse HEAD} in app/pom.xml). Built outside a git checkout (a source tarball) the commit is
 * "unknown" and only the version is printed.
 */
public final class Version implements CommandLine.IVersionProvider {
  static final String RESOURCE = "/io/fabricpulse/app/version.properties";

  @Override
  public String[] getVersion() {
    return new String[] {
      line(load()),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
    };
  }

  /** {@code fabricpulse 0.1.0 (commit 1a2b3c4d5e6f)}, or without the commit when unknown. */
  static String line(Properties build) {
    String version = value(build, "version");
    String commit = value(build, "commit");
    StringBuilder text = new StringBuilder("fabricpulse ");
    text.append(version != null ? version : "(version unknown: not built by Maven)");
    if (commit != null && !commit.equals("unknown")) {
      text.append(" (commit ").append(commit).append(')');
    }
    return text.toString();
  }

  /** A filtered value, or null when the build left it empty or unfiltered ({@code ${...}}). */
  private static String value(Properties build, String key) {
    String value = build.getProperty(key);
    return value == null || value.isBlank() || value.contains("${") ? null : value.strip();
  }

  static Properties load() {
    Properties build = new Properties();
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        build.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return build;
  }
}
