package io.fabricpulse.collectors.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Unpacks prometheus/procfs "ttar" text archives. Entries are separated by {@code # ttar - - -}
 * lines; {@code Directory: P} makes a directory; {@code Path: P} then {@code Lines: N} then N
 * content lines makes a file (a last line ending in {@code EOF} means the file has no trailing
 * newline; {@code NULLBYTE} stands for a NUL byte); {@code SymlinkTo: T} after a Path makes a
 * symlink; {@code Mode:} lines are ignored.
 */
public final class Ttar {
  private Ttar() {}

  public static void unpack(Path archive, Path into) throws IOException {
    List<String> lines = Files.readAllLines(archive, StandardCharsets.UTF_8);
    String path = null;
    int i = 0;
    while (i < lines.size()) {
      String line = lines.get(i++);
      if (line.startsWith("# ttar") || line.startsWith("Mode: ") || line.isEmpty()) {
        continue;
      }
      if (line.startsWith("Directory: ")) {
        Files.createDirectories(target(into, line.substring("Directory: ".length())));
      } else if (line.startsWith("Path: ")) {
        path = line.substring("Path: ".length());
      } else if (line.startsWith("SymlinkTo: ")) {
        Path link = target(into, require(path, i));
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, Path.of(line.substring("SymlinkTo: ".length())));
        path = null;
      } else if (line.startsWith("Lines: ")) {
        int count = Integer.parseInt(line.substring("Lines: ".length()).strip());
        StringBuilder content = new StringBuilder();
        for (int n = 0; n < count; n++) {
          String text = lines.get(i++).replace("NULLBYTE", "\0");
          if (n == count - 1 && text.endsWith("EOF")) {
            content.append(text, 0, text.length() - 3);
          } else {
            content.append(text).append('\n');
          }
        }
        Path file = target(into, require(path, i));
        Files.createDirectories(file.getParent());
        Files.writeString(file, content.toString(), StandardCharsets.UTF_8);
        path = null;
      } else {
        throw new IOException(archive + ":" + i + ": unexpected ttar line: " + line);
      }
    }
  }

  private static String require(String path, int line) throws IOException {
    if (path == null) {
      throw new IOException("ttar line " + line + ": content without a Path:");
    }
    return path;
  }

  private static Path target(Path into, String relative) throws IOException {
    Path target = into.resolve(relative).normalize();
    if (!target.startsWith(into)) {
      throw new IOException("ttar path escapes the target directory: " + relative);
    }
    return target;
  }
}
