package io.fabricpulse.collectors.sysfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

  /**
   * Open, read to EOF, close: sysfs reports a size of 4096 for every attribute whatever it holds,
   * so the size look that {@code Files.readAllBytes} makes first is one system call per file for
   * nothing (a cycle reads about 400 of them). The buffer is the calling thread's own.
   */
  @Override
  public String read(String relPath) throws IOException {
    try (FileChannel channel = FileChannel.open(resolve(relPath), StandardOpenOption.READ)) {
      ByteBuffer buffer = BUFFER.get();
      buffer.clear();
      while (channel.read(buffer) >= 0) {
        if (!buffer.hasRemaining()) {
          buffer = grow(buffer);
        }
      }
      buffer.flip();
      return StandardCharsets.UTF_8.decode(buffer).toString();
    }
  }

  @Override
  public String readIfPresent(String relPath) throws IOException {
    try {
      return read(relPath);
    } catch (NoSuchFileException absent) {
      return null;
    }
  }

  /** A sysfs attribute is at most a page; anything longer (a test fixture) doubles the buffer. */
  private static final ThreadLocal<ByteBuffer> BUFFER =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(8192));

  private static ByteBuffer grow(ByteBuffer full) {
    ByteBuffer bigger = ByteBuffer.allocateDirect(full.capacity() * 2);
    full.flip();
    bigger.put(full);
    BUFFER.set(bigger);
    return bigger;
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
