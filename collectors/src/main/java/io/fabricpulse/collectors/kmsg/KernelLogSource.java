package io.fabricpulse.collectors.kmsg;

import java.io.IOException;
import java.util.List;

/**
 * Where kernel log lines come from (/dev/kmsg, {@code journalctl -k -f}, a dmesg capture); tests
 * and the simulator substitute canned lines.
 */
public interface KernelLogSource {

  /** Lines logged since the previous call, without line terminators. */
  List<String> poll() throws IOException;
}
