package io.fabricpulse.collectors.topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The output directory of ibdiagnet runs ({@code ibdiagnet -o DIR}, default {@code
 * /var/tmp/ibdiagnet2}). Each run rewrites its files; a run is new when the modification time of
 * its {@code ibdiagnet2.ibnetdiscover} is later than that of the last run taken. Reading the files
 * sends nothing into the fabric: the operator's ibdiagnet run did.
 */
public final class IbdiagnetRunDirectory {
  /** The topology file ibdiagnet writes (the plain ibnetdiscover format). */
  public static final String TOPOLOGY_FILE = "ibdiagnet2.ibnetdiscover";

  /** The run's log: its warnings and errors (speed and width mismatches, counter checks). */
  public static final String LOG_FILE = "ibdiagnet2.log";

  private final Path directory;
  private Instant lastTaken;

  public IbdiagnetRunDirectory(Path directory) {
    this.directory = directory;
  }

  public Path directory() {
    return directory;
  }

  /**
   * A run's topology file and when ibdiagnet wrote it, and its log when the run left one.
   *
   * @param log the ibdiagnet2.log of the same directory; null when there is none
   * @param logWritten the log's modification time; null without a log
   */
  public record Run(
      Path file, Instant written, String text, Path log, Instant logWritten, String logText) {}

  /** The run written since the last call that returned one, or null when there is none. */
  public Run newRun() throws IOException {
    Path file = directory.resolve(TOPOLOGY_FILE);
    Instant written;
    try {
      written = Files.getLastModifiedTime(file).toInstant();
    } catch (NoSuchFileException e) {
      return null; // no run yet
    }
    if (lastTaken != null && !written.isAfter(lastTaken)) {
      return null;
    }
    String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    lastTaken = written;
    Path log = directory.resolve(LOG_FILE);
    try {
      Instant logWritten = Files.getLastModifiedTime(log).toInstant();
      String logText = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
      return new Run(file, written, text, log, logWritten, logText);
    } catch (NoSuchFileException e) {
      return new Run(file, written, text, null, null, null);
    }
  }
}
