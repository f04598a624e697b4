package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.opensm.SminfoOutput;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The subnet managers of the simulated fabric: OpenSM on two hosts, {@code sm01} (master) and
 * {@code sm02} (standby), each writing its own log, and what {@code sminfo} answers.
 *
 * <p>Log lines use OpenSM's {@code "%s %02d %02d:%02d:%02d %06d [%04X] 0x%02x -> %s"} [OSM-log] in
 * UTC, with the messages of the real captures (docs/formats.md "OpenSM log and sminfo",
 * collectors/testdata/opensm/linux-rdma-opensm-3.3.21-standby-node-log1.txt). Light sweeps every 10
 * s are silent at the default log level, so a healthy fabric logs only its start-up. A master
 * failover follows [OSM-base]: the standby polls the master every 10 s and gives up after 4 failed
 * polls (each an ERR 3113/3120 SMInfo timeout, as in the real capture), then enters DISCOVERING,
 * does a heavy sweep "coming out of standby", enters MASTER and brings the subnet up. Between the
 * master's death and the takeover, {@code sminfo} finds no SM and fails the way infiniband-diags
 * does.
 */
final class SimulatedSubnetManager {
  static final List<String> HOSTS = List.of("sm01", "sm02");

  /** OpenSM's standby poll: 10 000 ms x 4 retries before the standby takes over [OSM-base]. */
  static final Duration POLL_INTERVAL = Duration.ofSeconds(10);

  static final int POLL_RETRIES = 4;

  private static final DateTimeFormatter HEADER_TIME =
      DateTimeFormatter.ofPattern("MMM dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** One OpenSM instance. */
  static final class Sm {
    final String host;
    final int lid;
    final String guid;
    final int priority;
    final String mainThread;
    final String sweepThread;
    final LineLog<String> log;
    long activityCount;

    Sm(String host, int lid, String guid, int priority, SplittableRandom random, Object lock) {
      this.host = host;
      this.lid = lid;
      this.guid = guid;
      this.priority = priority;
      this.mainThread = String.format("%08X", random.nextInt() & 0xFFFFFFFFL);
      this.sweepThread = String.format("%08X", random.nextInt() & 0xFFFFFFFFL);
      this.log = new LineLog<>(lock);
    }
  }

  final Sm first;
  final Sm second;
  private final SplittableRandom random;
  private final int sminfoPid;
  private Sm master;
  private Instant masterLostAt;
  private int failedPolls;

  SimulatedSubnetManager(long seed, Instant start, Object lock) {
    this.random = new SplittableRandom(seed ^ 0x5EED_05E1L);
    this.first = new Sm("sm01", 1, guid(), 14, random, lock);
    this.second = new Sm("sm02", 2, guid(), 13, random, lock);
    this.master = first;
    this.sminfoPid = 40_000 + random.nextInt(20_000);
    first.activityCount = 1_000 + random.nextInt(50_000);
    startUp(first, start, true);
    startUp(second, start, false);
  }

  /** A ConnectX port GUID under Mellanox's OUI 0x0002c9/0xe41d2d family. */
  private String guid() {
    return String.format("0x%016x", 0xe41d2d0300000000L | (random.nextLong() & 0xFFFFFFFFL));
  }

  private void startUp(Sm sm, Instant t, boolean becomesMaster) {
    int us = random.nextInt(100_000);
    log(sm, sm.mainThread, t, us, 0x03, "OpenSM 3.3.21");
    log(sm, sm.mainThread, t, us + 53, 0x80, "Entering DISCOVERING state");
    log(sm, sm.mainThread, t, us + 2_311, 0x02, "osm_vendor_init: 1000 pending umads specified");
    for (String mgmtClass : List.of("0x81", "0x03", "0x04", "0x21")) {
      us += 60;
      log(
          sm,
          sm.mainThread,
          t,
          us + 2_400,
          0x02,
          "osm_vendor_bind: Mgmt class " + mgmtClass + " binding to port GUID " + sm.guid);
    }
    log(
        sm,
        sm.mainThread,
        t,
        us + 2_500,
        0x02,
        "osm_opensm_bind: Setting IS_SM on port " + sm.guid);
    if (becomesMaster) {
      heavySweepAndUp(sm, t, us + 20_000, false);
    } else {
      log(sm, sm.sweepThread, t, us + 40_000, 0x80, "Entering STANDBY state");
    }
  }

  private void heavySweepAndUp(Sm sm, Instant t, int us, boolean comingOutOfStandby) {
    log(
        sm,
        sm.sweepThread,
        t,
        us,
        0x02,
        "do_sweep: Entering heavy sweep with flags: force_heavy_sweep 0, coming out of standby "
            + (comingOutOfStandby ? 1 : 0)
            + ", subnet initialization error 0, sm port change "
            + (comingOutOfStandby ? 0 : 1));
    log(sm, sm.sweepThread, t, us + 24_427, 0x80, "Entering MASTER state");
    log(
        sm,
        sm.sweepThread,
        t,
        us + 39_155,
        0x02,
        "osm_ucast_mgr_process: minhop tables configured on all switches");
    log(sm, sm.sweepThread, t, us + 80_913, 0x02, "SUBNET UP");
  }

  /** The master OpenSM dies (process killed): it logs nothing more and stops answering. */
  void masterLost(Instant at) {
    if (master == first) {
      master = null;
      masterLostAt = at;
      failedPolls = 0;
    }
  }

  /** One simulated second ending at {@code t}. */
  void second(Instant t) {
    if (master != null) {
      master.activityCount += 1 + random.nextInt(4);
      return;
    }
    if (masterLostAt == null) {
      return;
    }
    long since = Duration.between(masterLostAt, t).toSeconds();
    if (since > 0 && since % POLL_INTERVAL.toSeconds() == 0 && failedPolls < POLL_RETRIES) {
      failedPolls++;
      int us = random.nextInt(900_000);
      String tid = String.format("0x%x", 0x2900 + random.nextInt(0x2000));
      log(
          second,
          second.sweepThread,
          t,
          us,
          0x01,
          "sm_mad_ctrl_send_err_cb: ERR 3113: MAD completed in error (IB_TIMEOUT):"
              + " SubnGet(SMInfo), attr_mod 0x0, TID "
              + tid);
      log(
          second,
          second.sweepThread,
          t,
          us + 10,
          0x01,
          "sm_mad_ctrl_send_err_cb: ERR 3120: Timeout while getting attribute 0x20 (SMInfo);"
              + " Possible mis-set mkey?");
      if (failedPolls == POLL_RETRIES) {
        log(second, second.mainThread, t, us + 600, 0x80, "Entering DISCOVERING state");
        heavySweepAndUp(second, t, Math.min(us + 1_000, 880_000), true);
        master = second;
        second.activityCount = 1 + random.nextInt(20);
      }
    }
  }

  /** What {@code sminfo} prints at the current time. */
  SminfoOutput sminfo() {
    if (master == null) {
      // infiniband-diags on a timeout: libibmad's ibwarn lines, then iberror, exit -1 (255).
      int pid = sminfoPid;
      String stderr =
          "ibwarn: ["
              + pid
              + "] _do_madrpc: recv failed: Connection timed out\n"
              + "ibwarn: ["
              + pid
              + "] mad_rpc: _do_madrpc failed; dport (Lid "
              + first.lid
              + ")\n"
              + "sminfo: iberror: failed: query\n";
      return new SminfoOutput(255, "", stderr);
    }
    // rdma-core sminfo.c: "sminfo: sm lid %d sm guid 0x%" PRIx64 ", activity count %u priority
    // %d state %d %s" [SMINFO]
    return SminfoOutput.ok(
        String.format(
            "sminfo: sm lid %d sm guid %s, activity count %d priority %d state 3 SMINFO_MASTER\n",
            master.lid, master.guid, master.activityCount, master.priority));
  }

  Sm host(String name) {
    if (first.host.equals(name)) {
      return first;
    }
    if (second.host.equals(name)) {
      return second;
    }
    throw new IllegalArgumentException("no subnet manager host " + name);
  }

  private static void log(Sm sm, String thread, Instant t, int micros, int level, String msg) {
    sm.log.append(
        String.format(
            "%s %06d [%s] 0x%02x -> %s",
            HEADER_TIME.format(t), Math.min(micros, 999_999), thread, level, msg));
  }
}
