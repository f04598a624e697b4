package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.sysfs.SysfsTree;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The sysfs tree of one simulated node: a live view whose files render the simulator's current
 * state on every read, with the exact text the kernel would give. Nothing is written to disk.
 */
final class SimulatedNodeTree implements SysfsTree {
  private final Object lock;
  private final Map<String, Supplier<String>> files = new HashMap<>();
  private final Map<String, TreeSet<String>> directories = new HashMap<>();

  SimulatedNodeTree(Object lock) {
    this.lock = lock;
    directories.put("", new TreeSet<>());
  }

  void file(String path, Supplier<String> content) {
    files.put(path, content);
    String child = path;
    int slash;
    while ((slash = child.lastIndexOf('/')) >= 0) {
      String parent = child.substring(0, slash);
      directories.computeIfAbsent(parent, k -> new TreeSet<>()).add(child.substring(slash + 1));
      child = parent;
    }
    directories.get("").add(child);
  }

  void constant(String path, String content) {
    file(path, () -> content);
  }

  @Override
  public List<String> list(String relDir) {
    TreeSet<String> names = directories.get(relDir);
    return names == null ? List.of() : new ArrayList<>(names);
  }

  @Override
  public String read(String relPath) throws IOException {
    Supplier<String> content = files.get(relPath);
    if (content == null) {
      throw new NoSuchFileException(relPath);
    }
    synchronized (lock) {
      return content.get();
    }
  }

  @Override
  public boolean exists(String relPath) {
    return files.containsKey(relPath) || directories.containsKey(relPath);
  }
}
