package io.fabricpulse.collectors.sysfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A sysfs tree held in memory: files put by path, directories implied by the paths. A file can be
 * made to fail on read, the way some sysfs attributes return EINVAL or EIO.
 */
public final class InMemorySysfsTree implements SysfsTree {
  private final Map<String, String> files = new TreeMap<>();
  private final Map<String, String> failures = new TreeMap<>();

  /** Adds or replaces a file. */
  public InMemorySysfsTree put(String relPath, String content) {
    files.put(relPath, content);
    return this;
  }

  /** Makes a read of {@code relPath} throw an IOException with {@code reason}. */
  public InMemorySysfsTree fail(String relPath, String reason) {
    failures.put(relPath, reason);
    return this;
  }

  public InMemorySysfsTree remove(String relPath) {
    files.remove(relPath);
    failures.remove(relPath);
    return this;
  }

  @Override
  public List<String> list(String relDir) {
    String prefix = relDir.isEmpty() ? "" : relDir + "/";
    TreeSet<String> names = new TreeSet<>();
    for (String path : allPaths()) {
      if (path.startsWith(prefix) && path.length() > prefix.length()) {
        String rest = path.substring(prefix.length());
        int slash = rest.indexOf('/');
        names.add(slash < 0 ? rest : rest.substring(0, slash));
      }
    }
    return new ArrayList<>(names);
  }

  @Override
  public String read(String relPath) throws IOException {
    String reason = failures.get(relPath);
    if (reason != null) {
      throw new IOException(reason);
    }
    String content = files.get(relPath);
    if (content == null) {
      throw new java.nio.file.NoSuchFileException(relPath);
    }
    return content;
  }

  @Override
  public boolean exists(String relPath) {
    if (files.containsKey(relPath) || failures.containsKey(relPath)) {
      return true;
    }
    String prefix = relPath + "/";
    return allPaths().stream().anyMatch(p -> p.startsWith(prefix));
  }

  private List<String> allPaths() {
    List<String> all = new ArrayList<>(files.keySet());
    all.addAll(failures.keySet());
    return all;
  }
}
