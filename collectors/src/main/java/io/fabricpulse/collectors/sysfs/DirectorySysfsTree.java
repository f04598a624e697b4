package io.fabricpulse.collectors.sysfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/** A sysfs tree on disk: the real {@code /sys}, or a test fixture unpacked into a directory. */
public final class DirectorySysfsTree implements SysfsTree {
  private final Path root;

  public DirectorySysfsTree(Path root) {
    this.root = root;
  }

  public Path root() {
    return root;
  }

  @Override
  public List<String> list(String relDir) {
    Path dir = resolve(relDir);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> entries = Files.list(dir)) {
      entries.forEach(p -> names.add(p.getFileName().toString()));
    } catch (IOException e) {
      return List.of();
    }
    Collections.sort(names);
    return names;
  }

  @Override
  public String read(String relPath) throws IOException {
    // sysfs files report a size of 4096 whatever they hold; readAllBytes reads to EOF regardless.
    return new String(Files.readAllBytes(resolve(relPath)), StandardCharsets.UTF_8);
  }

  @Override
  public boolean exists(String relPath) {
    return Files.exists(resolve(relPath));
  }

  private Path resolve(String relPath) {
    return relPath.isEmpty() ? root : root.resolve(relPath);
  }

  @Override
  public String toString() {
    return "DirectorySysfsTree[" + root + "]";
  }
}
