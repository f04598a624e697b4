package io.fabricpulse.collectors.nccl;

import io.fabricpulse.schemas.nccl.NcclKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies one NCCL message (the text after {@code NCCL INFO|WARN|TRACE}) into a {@link NcclKind}
 * and the values it carries. Pure: the same message always gives the same result. Format strings
 * are those of NVIDIA/nccl; the comments name the version that prints each form (docs/formats.md,
 * NCCL logs).
 */
public final class NcclMessageClassifier {

  /** A message's kind and extracted values (attrs of the NcclLog record). */
  public record Classification(NcclKind kind, Map<String, String> attrs) {}

  // "NCCL version %s" (init.cc); e.g. "NCCL version 2.27.5+cuda12.9", "NCCL version
  // 2.4.7+cuda10.1".
  private static final Pattern VERSION =
      Pattern.compile("^NCCL version (?<version>\\d+\\.\\d+\\.\\d+)(?:[-+](?<build>\\S+))?.*$");

  // "NET/IB : Using%s %s; OOB %s:%s" [NCCL-ibinit]; each device is " [%d]%s:%d/%s" (name:port/link
  // layer). 2.27 omits the "; OOB" part when NCCL_SOCKET_IFNAME fixes the bootstrap interface.
  // Net plugins built from the IB code (IBext, IBext_v8) print the same line under their own name.
  private static final Pattern NET_USING =
      Pattern.compile("^NET/(?<net>[A-Za-z0-9_]+) ?: Using(?<rest>.*)$");
  private static final Pattern IB_DEVICE =
      Pattern.compile("\\[(?<idx>\\d+)\\](?<name>[^\\s:\\[]+):(?<port>\\d+)/(?<ll>IB|RoCE|\\w+)");
  private static final Pattern SOCKET_DEVICE = Pattern.compile("\\[(?<idx>\\d+)\\](?<iface>\\S+)");
  private static final Pattern OOB = Pattern.compile("; OOB (?<oob>\\S+)");

  // "NET/IB : No device found." [NCCL-ibinit]
  private static final Pattern NO_DEVICE =
      Pattern.compile("^NET/(?<net>\\w+) ?: No device found\\.?");

  // "Using network %s" [NCCL-init]; the name is ncclNet->name: IB, Socket, or a plugin's name.
  private static final Pattern USING_NETWORK = Pattern.compile("^Using network (?<net>.+?)\\s*$");

  // Plugin lines (src/plugin/net.cc and net_v*.cc [NCCL-plugin]): "NET/Plugin: Loaded net plugin %s
  // (v%d)", "NET/Plugin: Failed to find ncclNetPlugin_v10 symbol.", "NET/Plugin : dlerror=... No
  // plugin found (libnccl-net.so), using internal implementation", "Successfully loaded external
  // plugin %s", "Initialized NET plugin %s", "Assigned NET plugin %s to comm", and the return-code
  // trace "plugin/net.cc:118 -> 2" that 2.27 prints when a loaded plugin fails to initialise.
  private static final Pattern PLUGIN_LOADED =
      Pattern.compile(
          "^NET/Plugin ?: Loaded (?:net|coll) plugin (?<plugin>.+?)(?: \\(v(?<v>\\d+)\\))?$");
  private static final Pattern PLUGIN_SYMBOL =
      Pattern.compile("^NET/Plugin ?: Failed to find (?<symbol>\\w+) symbol.*$");
  private static final Pattern PLUGIN_NAME_ENV =
      Pattern.compile("^NET/Plugin ?: Plugin name set by env to (?<plugin>\\S+)");
  private static final Pattern PLUGIN_EXTERNAL =
      Pattern.compile("^Successfully loaded external plugin (?<plugin>\\S+)");
  private static final Pattern PLUGIN_INITIALIZED =
      Pattern.compile("^Initialized NET plugin (?<plugin>.+?)\\s*$");
  private static final Pattern PLUGIN_ASSIGNED =
      Pattern.compile("^Assigned NET plugin (?<plugin>.+?) to comm\\s*$");
  private static final Pattern PLUGIN_RETURN =
      Pattern.compile("^(?<src>plugin/net\\w*\\.cc:\\d+) -> (?<code>\\d+)");
  private static final Pattern PLUGIN_OTHER =
      Pattern.compile("^(?:NET/Plugin|Using non-device net plugin|Using internal net plugin).*$");

  // >= 2.13.4: "NET/%s : GPU Direct RDMA %s for HCA %d '%s'" (graph/topo.cc [NCCL-topo]);
  // 2.5.6 - 2.13: "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)" [NCCL-hist].
  private static final Pattern GDR_HCA =
      Pattern.compile(
          "^NET/(?<net>[^ :]+) ?: GPU Direct RDMA (?<state>Enabled|Disabled) for HCA (?<hca>\\d+)"
              + " '(?<dev>[^']*)'(?: \\((?<reason>[^)]*)\\))?.*$");

  // Per-GPU distance check (graph/paths.cc ncclTopoCheckGdr [NCCL-paths][NCCL-hist]):
  // 2.4: "NET/%s : GPU Direct RDMA Disabled for GPU %d[%d] / HCA %d (distance %d >= %d)",
  // 2.6+: "GPU Direct RDMA Disabled for GPU %lx / HCA %d (distance %d > %d)",
  // 2.24+: "GPU Direct RDMA Disabled for GPU %d / HCA %lx (distance %d > %d)", plus the Enabled
  // form
  // "... (distance %d <= %d), read %d mode %s". INFO up to 2.29, TRACE from 2.30.
  private static final Pattern GDR_GPU =
      Pattern.compile(
          "^(?:NET/(?<net>[^ :]+) ?: )?GPU Direct RDMA (?<state>Enabled|Disabled) for GPU"
              + " (?<gpu>\\S+?) / HCA (?<hca>\\S+) \\(distance (?<distance>\\d+)"
              + " (?<op>>=|>|<=|<) (?<level>\\d+)\\).*$");

  // Connection lines (transport/net.cc [NCCL-net], transport/p2p.cc, shm.cc):
  // 2.4:   "Ring %02d : %d -> %d [receive] via NET/%s/%d%s" and "Ring %02d : %d[%d] -> %d[%d] via
  // P2P/IPC"
  // 2.5-2.11: "Channel %02d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s%s"
  // 2.12+: "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", the PXN form
  //        "... via NET/%s/%d(%d)%s%s%s" (proxy rank in parentheses), suffixes "/GDRDMA", "(PCI)",
  //        "/Shared"; intra-node "via P2P/CUMEM", "via P2P/IPC", "via SHM/direct/direct".
  // The "Channel 00/16 :    0   7   6 ..." ring-order summary has no "via" and is not a connection.
  private static final Pattern CONNECTION =
      Pattern.compile(
          "^(?<form>Channel|Ring) (?<ch>\\d+)(?:/(?<conn>\\d+))? : (?<from>\\d+)(?:\\[(?<fromdev>\\w+)\\])?"
              + " -> (?<to>\\d+)(?:\\[(?<todev>\\w+)\\])?(?: \\[(?<dir>send|receive)\\])? via (?<via>.+?)\\s*$");
  private static final Pattern NET_VIA =
      Pattern.compile("^NET/(?<net>[^/]+)/(?<dev>\\d+)(?:\\((?<proxy>\\d+)\\))?(?<suffix>.*)$");

  // "Connected all rings, use ring PXN %d GDR %d" (transport/generic.cc, >= 2.24.3 [NCCL-generic]);
  // builds derived from it may print "... connected rings from channel %d to %d, use ring PXN %d
  // GDR %d".
  private static final Pattern RING_SUMMARY =
      Pattern.compile(
          "^.*[Cc]onnected (?:all )?rings.*use ring PXN (?<pxn>\\d+) GDR (?<gdr>\\d+).*$");

  // "ncclCommInitRank comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx -
  // Init
  // START|COMPLETE" (init.cc); before 2.19 without commId, and older builds print plain "Init
  // COMPLETE".
  private static final Pattern INIT =
      Pattern.compile("^(?<text>.*)Init (?<phase>START|COMPLETE)\\b.*$");
  private static final Pattern COMM = Pattern.compile("\\bcomm (?<comm>0x[0-9a-fA-F]+)");
  private static final Pattern RANK =
      Pattern.compile("\\brank (?<rank>\\d+) nranks (?<nranks>\\d+)");
  private static final Pattern COMM_ID = Pattern.compile("\\bcommId (?<id>0x[0-9a-fA-F]+)");

  // "DMA-BUF is available on GPU device %d" [NCCL-init]
  private static final Pattern DMABUF =
      Pattern.compile("^DMA-BUF is available on GPU device (?<gpu>\\d+)");

  // "NCCL_NET_GDR_LEVEL set by environment to %s" [NCCL-paths]
  private static final Pattern GDR_LEVEL_ENV =
      Pattern.compile("^NCCL_NET_GDR_LEVEL set by environment to (?<level>\\S+)");

  // WARN "NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d"
  // (net_ib.cc up to 2.18, later with " (%s)" request type), "... with status=%d opcode=%d len=%d
  // vendor err %d (%s)%s%s%s%s hca %s" (2.19-2.2x), and "... with status=%s(%d) opcode=%s(%d)
  // vendor_err=%u %s%s%s%s hca %s" (p2p.cc, 2.30 [NCCL-p2p]).
  private static final Pattern COMPLETION =
      Pattern.compile(
          "^NET/(?<net>[^ :]+)(?:/GIN)? ?: Got completion from peer (?<peer>\\S+) with (?<rest>.*)$");
  private static final Pattern C_STATUS =
      Pattern.compile("(?:error |status=)(?:(?<name>[^(=,]*?)\\()?(?<code>\\d+)");
  private static final Pattern C_OPCODE =
      Pattern.compile("opcode[ =](?:(?<name>[A-Za-z_]+)\\()?(?<code>\\d+)\\)?");
  private static final Pattern C_LEN = Pattern.compile("\\blen[ =](?<len>\\d+)");
  private static final Pattern C_VENDOR = Pattern.compile("vendor[ _]err[ =]?(?<v>\\d+)");
  private static final Pattern C_REQ = Pattern.compile("vendor[ _]err[ =]?\\d+ \\((?<req>\\w+)\\)");
  private static final Pattern C_HCA = Pattern.compile("\\bhca (?<hca>\\S+)");

  // Return-code trace "transport/net.cc:1134 -> 6" (NCCLCHECK propagation after an error).
  private static final Pattern RETURN_CODE =
      Pattern.compile("^(?<src>[\\w./-]+:\\d+) -> (?<code>\\d+)(?<rest>.*)$");

  private NcclMessageClassifier() {}

  /**
   * Classifies a message.
   *
   * @param level INFO, WARN, TRACE or null (bare version line)
   */
  public static Classification classify(String message, String level) {
    Map<String, String> attrs = new LinkedHashMap<>();
    if ("WARN".equals(level)) {
      addCompletionError(message, attrs);
      return new Classification(NcclKind.WARN, attrs);
    }
    NcclKind kind = classifyInfo(message, attrs);
    return new Classification(kind, attrs);
  }

  /** True when a WARN completion-error message was cut before its vendor error (a wrapped line). */
  public static boolean isTruncatedCompletionError(String message) {
    return COMPLETION.matcher(message).matches() && !C_VENDOR.matcher(message).find();
  }

  private static NcclKind classifyInfo(String msg, Map<String, String> attrs) {
    Matcher m;
    if ((m = VERSION.matcher(msg)).matches()) {
      attrs.put("version", m.group("version"));
      putIfNotNull(attrs, "build", m.group("build"));
      return NcclKind.VERSION;
    }
    if ((m = CONNECTION.matcher(msg)).matches()) {
      connection(m, attrs);
      return NcclKind.CHANNEL;
    }
    if ((m = GDR_HCA.matcher(msg)).matches()) {
      attrs.put("transport", m.group("net"));
      attrs.put("enabled", Boolean.toString("Enabled".equals(m.group("state"))));
      attrs.put("hca", m.group("hca"));
      attrs.put("dev", m.group("dev"));
      putIfNotNull(attrs, "reason", m.group("reason"));
      return NcclKind.GDR_HCA;
    }
    if ((m = GDR_GPU.matcher(msg)).matches()) {
      putIfNotNull(attrs, "transport", m.group("net"));
      attrs.put("enabled", Boolean.toString("Enabled".equals(m.group("state"))));
      attrs.put("gpu", m.group("gpu"));
      attrs.put("hca", m.group("hca"));
      attrs.put("distance", m.group("distance"));
      attrs.put("gdr_level", m.group("level"));
      return NcclKind.GDR_GPU_DISTANCE;
    }
    if ((m = RING_SUMMARY.matcher(msg)).matches()) {
      attrs.put("pxn", m.group("pxn"));
      attrs.put("gdr", m.group("gdr"));
      return NcclKind.RING_SUMMARY;
    }
    if ((m = NO_DEVICE.matcher(msg)).lookingAt()) {
      attrs.put("net", m.group("net"));
      return NcclKind.NET_IB_NO_DEVICE;
    }
    if ((m = NET_USING.matcher(msg)).matches()) {
      return netUsing(m.group("net"), m.group("rest"), attrs);
    }
    if ((m = USING_NETWORK.matcher(msg)).matches()) {
      attrs.put("net", m.group("net"));
      return NcclKind.USING_NETWORK;
    }
    if (plugin(msg, attrs)) {
      return NcclKind.PLUGIN;
    }
    if ((m = INIT.matcher(msg)).matches()) {
      Matcher c;
      if ((c = COMM.matcher(msg)).find()) {
        attrs.put("comm", c.group("comm"));
      }
      if ((c = RANK.matcher(msg)).find()) {
        attrs.put("rank", c.group("rank"));
        attrs.put("nranks", c.group("nranks"));
      }
      return "START".equals(m.group("phase")) ? NcclKind.INIT_START : NcclKind.INIT_COMPLETE;
    }
    if ((m = DMABUF.matcher(msg)).lookingAt()) {
      attrs.put("gpu", m.group("gpu"));
      return NcclKind.DMABUF;
    }
    if ((m = GDR_LEVEL_ENV.matcher(msg)).lookingAt()) {
      attrs.put("level", m.group("level"));
      return NcclKind.GDR_LEVEL_ENV;
    }
    if ((m = COMPLETION.matcher(msg)).matches()) {
      // Some builds print the completion error at INFO before the WARN; keep its values too.
      addCompletionError(msg, attrs);
      return NcclKind.OTHER;
    }
    if ((m = RETURN_CODE.matcher(msg)).matches()) {
      attrs.put("src", m.group("src"));
      attrs.put("return_code", m.group("code"));
    }
    return NcclKind.OTHER;
  }

  private static void connection(Matcher m, Map<String, String> attrs) {
    attrs.put("form", m.group("form"));
    attrs.put("channel", m.group("ch"));
    putIfNotNull(attrs, "conn_index", m.group("conn"));
    attrs.put("from_rank", m.group("from"));
    attrs.put("to_rank", m.group("to"));
    putIfNotNull(attrs, "direction", m.group("dir"));
    String via = m.group("via");
    attrs.put("via", via);
    Matcher net = NET_VIA.matcher(via);
    if (net.matches()) {
      String suffix = net.group("suffix");
      attrs.put("transport", "NET/" + net.group("net"));
      attrs.put("net", net.group("net"));
      attrs.put("net_dev", net.group("dev"));
      putIfNotNull(attrs, "proxy_rank", net.group("proxy"));
      attrs.put("gdr", Boolean.toString(suffix.contains("/GDRDMA")));
      if (suffix.contains("(PCI)")) {
        attrs.put("gdr_mode", "PCI");
      }
      if (suffix.contains("/Shared")) {
        attrs.put("shared", "true");
      }
    } else {
      int slash = via.indexOf('/');
      attrs.put("transport", slash < 0 ? via : via.substring(0, slash));
      if (slash >= 0) {
        attrs.put("mechanism", via.substring(slash + 1));
      }
    }
  }

  private static NcclKind netUsing(String net, String rest, Map<String, String> attrs) {
    attrs.put("net", net);
    if ("Socket".equals(net)) {
      List<String> ifaces = new ArrayList<>();
      Matcher d = SOCKET_DEVICE.matcher(rest);
      while (d.find()) {
        ifaces.add(d.group("iface"));
      }
      attrs.put("ifaces", String.join(",", ifaces));
      return NcclKind.NET_SOCKET_USING;
    }
    String devices = rest;
    Matcher oob = OOB.matcher(rest);
    if (oob.find()) {
      attrs.put("oob", oob.group("oob"));
      devices = rest.substring(0, oob.start());
    }
    List<String> hcas = new ArrayList<>();
    List<String> linkLayers = new ArrayList<>();
    Matcher d = IB_DEVICE.matcher(devices);
    while (d.find()) {
      hcas.add(d.group("name") + ":" + d.group("port"));
      linkLayers.add(d.group("ll"));
    }
    if (hcas.isEmpty()) {
      // "NET/OFI Using aws-ofi-nccl 1.6.0" and similar plugin banners are not a device list.
      attrs.clear();
      return NcclKind.OTHER;
    }
    Set<String> distinct = new LinkedHashSet<>(linkLayers);
    attrs.put("hcas", String.join(",", hcas));
    attrs.put("hca_count", Integer.toString(hcas.size()));
    attrs.put("link_layers", String.join(",", linkLayers));
    attrs.put("link_layer_set", String.join(",", distinct));
    // "[RO]": relaxed ordering enabled for the IB memory registrations.
    attrs.put("relaxed_ordering", Boolean.toString(devices.contains("[RO]")));
    return NcclKind.NET_IB_USING;
  }

  private static boolean plugin(String msg, Map<String, String> attrs) {
    Matcher m;
    if ((m = PLUGIN_LOADED.matcher(msg)).matches()) {
      attrs.put("event", "loaded");
      attrs.put("plugin", m.group("plugin"));
      putIfNotNull(attrs, "plugin_version", m.group("v"));
    } else if ((m = PLUGIN_SYMBOL.matcher(msg)).matches()) {
      attrs.put("event", "symbol_missing");
      attrs.put("symbol", m.group("symbol"));
    } else if ((m = PLUGIN_NAME_ENV.matcher(msg)).lookingAt()) {
      attrs.put("event", "name_from_env");
      attrs.put("plugin", m.group("plugin"));
    } else if ((m = PLUGIN_EXTERNAL.matcher(msg)).lookingAt()) {
      attrs.put("event", "loaded_external");
      attrs.put("plugin", m.group("plugin"));
    } else if ((m = PLUGIN_INITIALIZED.matcher(msg)).matches()) {
      attrs.put("event", "initialized");
      attrs.put("plugin", m.group("plugin"));
    } else if ((m = PLUGIN_ASSIGNED.matcher(msg)).matches()) {
      attrs.put("event", "assigned");
      attrs.put("plugin", m.group("plugin"));
    } else if ((m = PLUGIN_RETURN.matcher(msg)).lookingAt()) {
      // A non-zero return out of the plugin loader: the plugin failed and NCCL falls back.
      attrs.put("event", "init_failed");
      attrs.put("src", m.group("src"));
      attrs.put("return_code", m.group("code"));
    } else if (PLUGIN_OTHER.matcher(msg).matches()) {
      attrs.put("event", msg.contains("No plugin found") ? "not_found" : "other");
    } else {
      return false;
    }
    return true;
  }

  private static void addCompletionError(String msg, Map<String, String> attrs) {
    Matcher m = COMPLETION.matcher(msg);
    if (!m.matches()) {
      return;
    }
    attrs.put("event", "completion_error");
    attrs.put("transport", m.group("net"));
    attrs.put("peer", m.group("peer"));
    String rest = m.group("rest");
    Matcher p;
    if ((p = C_STATUS.matcher(rest)).find()) {
      attrs.put("status", p.group("code"));
      String name = p.group("name");
      if (name != null && !name.isBlank()) {
        attrs.put("status_name", name.trim());
      }
    }
    if ((p = C_OPCODE.matcher(rest)).find()) {
      attrs.put("opcode", p.group("code"));
      putIfNotNull(attrs, "opcode_name", p.group("name"));
    }
    if ((p = C_LEN.matcher(rest)).find()) {
      attrs.put("len", p.group("len"));
    }
    if ((p = C_VENDOR.matcher(rest)).find()) {
      attrs.put("vendor_err", p.group("v"));
    }
    if ((p = C_REQ.matcher(rest)).find()) {
      attrs.put("request", p.group("req"));
    }
    if ((p = C_HCA.matcher(rest)).find()) {
      attrs.put("hca", p.group("hca"));
    }
  }

  /** The commId a message carries, or null. */
  static String commId(String msg) {
    Matcher m = COMM_ID.matcher(msg);
    return m.find() ? m.group("id") : null;
  }

  private static void putIfNotNull(Map<String, String> attrs, String key, String value) {
    if (value != null) {
      attrs.put(key, value);
    }
  }
}
