package io.fabricpulse.app.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file a service rewrites while it does its work ({@code --alive-file}), so that a container
 * health check can tell a working service from a hung one by the file's age alone, without an HTTP
 * client in the image: {@code [ $(( $(date +%s) - $(stat -c %Y FILE) )) -lt 60 ]}. The content is
 * the time of the last rewrite (ISO-8601), for a human reading it.
 */
public final class AliveFile {
  private static final Logger log = LoggerFactory.getLogger(AliveFile.class);

  private final Path file;
  private boolean warned;

  public AliveFile(Path file) {
    this.file = file;
  }

  public Path path() {
    return file;
  }

  /**
   * Every 2 s: when {@code progress} grew since the last look (the service's loop runs and its work
   * succeeds), rewrite the file. Shut the returned timer down when the service stops.
   *
   * @param progress a count of the service's completed work, e.g. health points the store accepted
   *     or transactions committed
   */
  public ScheduledExecutorService touchWhileGrowing(LongSupplier progress, String threadName) {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    long[] seen = {0};
    var unused =
        timer.scheduleWithFixedDelay(
            () -> {
              long now = progress.getAsLong();
              if (now > seen[0]) {
                seen[0] = now;
                touch(Instant.now());
              }
            },
            0,
            2,
            TimeUnit.SECONDS);
    return timer;
  }

  /** Rewrites the file (atomically); a failure is logged once and never stops the service. */
  public void touch(Instant now) {
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, now + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      warned = false;
    } catch (IOException | RuntimeException e) {
      if (!warned) {
        log.warn("cannot write the alive file {}: {}", file, e.toString());
        warned = true;
      }
    }
  }
}
