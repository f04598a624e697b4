package io.fabricpulse.collectors.opensm;

import java.io.IOException;
import java.util.List;

/** A followed OpenSM log: the {@link OpenSmLogTailer} on an SM host, or the fabric simulator. */
public interface OpenSmLogSource {

  /** Complete lines written since the previous call, without line terminators. */
  List<String> poll() throws IOException;
}
