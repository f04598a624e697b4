package io.fabricpulse.collectors.opensm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs the real {@code sminfo} binary with a timeout. */
public final class ProcessSminfoSource implements SminfoSource {
  private final List<String> command;
  private final Duration timeout;

  /**
   * @param executable path or name of sminfo
   * @param extraArgs e.g. {@code -C mlx5_0 -P 1}
   */
  public ProcessSminfoSource(String executable, List<String> extraArgs, Duration timeout) {
    List<String> cmd = new ArrayList<>();
    cmd.add(executable);
    cmd.addAll(extraArgs);
    this.command = List.copyOf(cmd);
    this.timeout = timeout;
  }

  @Override
  public SminfoOutput run() throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).start();
    CompletableFuture<String> stdout = readAsync(process.getInputStream());
    CompletableFuture<String> stderr = readAsync(process.getErrorStream());
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      return new SminfoOutput(-1, "", "sminfo timed out after " + timeout.toMillis() + " ms");
    }
    try {
      return new SminfoOutput(process.exitValue(), stdout.get(), stderr.get());
    } catch (ExecutionException e) {
      throw new IOException("reading sminfo output", e.getCause());
    }
  }

  private static CompletableFuture<String> readAsync(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }
}
