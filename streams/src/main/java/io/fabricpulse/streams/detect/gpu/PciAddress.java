package io.fabricpulse.streams.detect.gpu;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bus:device part of a PCI address, so the kernel's {@code PCI:0000:10:1c} (Xid line
 * [GPUD-xid]) and nvidia-smi's {@code 00000000:10:1C.0} name the same GPU. The domain is dropped
 * (nvidia-smi prints 8 digits, the kernel 4) and so is the function (GPUs are function 0).
 */
final class PciAddress {

  private static final Pattern ADDRESS =
      Pattern.compile(
          "^(?:PCI:)?(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})(?:\\.[0-9a-fA-F])?$");

  private PciAddress() {}

  /** {@code 10:1c} for any spelling of bus 0x10 device 0x1c, or empty when unreadable. */
  static Optional<String> busDevice(String address) {
    if (address == null) {
      return Optional.empty();
    }
    Matcher m = ADDRESS.matcher(address.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of((m.group(2) + ":" + m.group(3)).toLowerCase(Locale.ROOT));
  }
}
