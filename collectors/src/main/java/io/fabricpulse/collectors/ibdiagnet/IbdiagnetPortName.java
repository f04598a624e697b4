package io.fabricpulse.collectors.ibdiagnet;

import io.fabricpulse.collectors.fabric.LinkEnd;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A port as ibdiagnet names it: {@code S0002c90300688830/N0002c90300688830/P20} (system GUID, node
 * GUID, port) for a node without a usable NodeDescription, else the description's first word and
 * the device ({@code ime2/U1/P1}, {@code is-north-7-compute-32/mlx5_3/B66D0F0/0/0/1}); Quantum-2
 * switches label ports {@code P<cage>/<port>/<split>} ({@code ib-switch-sequoia/U1/P1/1/2}).
 *
 * @param raw the name as printed
 * @param nodeGuid the node GUID of the {@code S.../N...} form, normalized; null otherwise
 * @param portLabel the text after the last {@code /P} of the name ({@code 20}, {@code 1/1/2}); null
 *     when the name has no port ({@code Sfc6a1c03008a4dc0/Nfc6a1c03008a4dc8})
 */
public record IbdiagnetPortName(String raw, String nodeGuid, String portLabel) {
  private static final Pattern GUID_FORM =
      Pattern.compile(
          "^S[0-9A-Fa-f]{16}/N(?<node>[0-9A-Fa-f]{16})(?:/P(?<port>[0-9]+(?:/[0-9]+)*)|/.*)?$");
  private static final Pattern PORT = Pattern.compile("/P(?<port>[0-9]+(?:/[0-9]+)*)$");

  public static IbdiagnetPortName of(String raw) {
    String name = raw.strip();
    Matcher guid = GUID_FORM.matcher(name);
    if (guid.matches()) {
      return new IbdiagnetPortName(
          name, LinkEnd.normalizeGuid(guid.group("node")), guid.group("port"));
    }
    Matcher port = PORT.matcher(name);
    return new IbdiagnetPortName(name, null, port.find() ? port.group("port") : null);
  }
}
