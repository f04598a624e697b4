package io.fabricpulse.collectors.sysfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Writes the current text of a {@link SysfsTree} (e.g. the simulator's live view) to a directory,
 * so the collector can read it through real file system calls ({@code DirectorySysfsTree}).
 */
public final class SysfsSnapshot {
  private SysfsSnapshot() {}

  /** Copies every readable file under {@code relDir}; a file that fails to read is left out. */
  public static void write(SysfsTree tree, String relDir, Path target) throws IOException {
    Files.createDirectories(relDir.isEmpty() ? target : target.resolve(relDir));
    for (String name : tree.list(relDir)) {
      String path = relDir.isEmpty() ? name : relDir + "/" + name;
      if (!tree.list(path).isEmpty()) {
        write(tree, path, target);
        continue;
      }
      try {
        Files.writeString(target.resolve(path), tree.read(path), StandardCharsets.UTF_8);
      } catch (IOException unreadable) {
        // The kernel fails some reads (EINVAL on an unset GID); the reader treats absent the same.
      }
    }
  }

  public static void delete(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
