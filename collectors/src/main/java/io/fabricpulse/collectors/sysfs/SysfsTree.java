package io.fabricpulse.collectors.sysfs;

import java.io.IOException;
import java.util.List;

/**
 * Read-only view of a sysfs tree, rooted at what {@code --sysfs-root} points at (the directory that
 * holds {@code class/infiniband}, {@code /sys} on a real node). The OS sits behind this interface,
 * as in telegraf's ethtool plugin, so tests and the fabric simulator can serve their own files.
 * Paths are relative and '/'-separated, e.g. {@code class/infiniband/mlx5_0/ports/1/rate}.
 */
public interface SysfsTree {

  /** Names of the entries of a directory, sorted; empty when it does not exist. */
  List<String> list(String relDir);

  /** The whole content of a file, exactly as read (trailing newline included). */
  String read(String relPath) throws IOException;

  /** Whether a file or directory exists. */
  boolean exists(String relPath);

  /**
   * The content of a file that may be absent, null when it is: one read instead of a look and a
   * read where the tree can tell absence from the read itself (a real directory can).
   */
  default String readIfPresent(String relPath) throws IOException {
    return exists(relPath) ? read(relPath) : null;
  }
}
