package io.fabricpulse.collectors.kmsg;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the kernel log through {@code journalctl -k -f -o short-iso -n 0} when /dev/kmsg cannot
 * be read (containers, {@code kernel.dmesg_restrict=1} without CAP_SYSLOG but with the
 * systemd-journal group). A daemon thread reads the process output into a bounded buffer, so {@link
 * #poll} never blocks; if journalctl exits, the next poll starts it again. short-iso lines carry a
 * full timestamp with offset, which {@link KernelLogXidParser} reads.
 */
public final class JournalctlKernelLogSource implements KernelLogSource, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(JournalctlKernelLogSource.class);

  private final List<String> command;
  private final LineBuffer buffer = new LineBuffer(KmsgSource.DEFAULT_CAPACITY);
  private Process process;
  private Thread reader;
  private long starts;

  /**
   * @param journalctl path or name of journalctl
   */
  public JournalctlKernelLogSource(String journalctl) {
    this.command = List.of(journalctl, "-k", "-f", "-o", "short-iso", "-n", "0", "--no-pager");
  }

  public List<String> command() {
    return command;
  }

  @Override
  public synchronized List<String> poll() throws IOException {
    List<String> lines = new ArrayList<>(buffer.drain());
    if (process == null || !process.isAlive()) {
      if (process != null) {
        LOG.warn("{} exited with {}; starting it again", command.get(0), process.exitValue());
      }
      start();
    }
    return lines;
  }

  /**
   * Waits until journalctl's reader has buffered at least {@code lines} lines that no poll took
   * yet, or {@code timeout} passed; true if so (tests wait on this instead of polling in a loop).
   */
  boolean awaitBuffered(int lines, java.time.Duration timeout) throws InterruptedException {
    return buffer.awaitSize(lines, timeout);
  }

  /** How many times journalctl was started. */
  public synchronized long starts() {
    return starts;
  }

  private void start() throws IOException {
    process =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    starts++;
    Process started = process;
    reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  if (!line.startsWith("-- ")) { // "-- No entries --", "-- Boot ... --"
                    buffer.add(line);
                  }
                }
              } catch (IOException e) {
                LOG.debug("journalctl output closed: {}", e.toString());
              }
            },
            "fabricpulse-journalctl-reader");
    reader.setDaemon(true);
    reader.start();
  }

  @Override
  public synchronized void close() {
    if (process != null) {
      process.destroy();
    }
  }
}
