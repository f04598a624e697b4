package io.fabricpulse.collectors.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every timestamp form {@link NcclLineTime} understands. Rows with a cited origin are the starts of
 * real lines; the others are format examples of the documented forms (ISO-8601, dmesg -T).
 */
class NcclLineTimeTest {

  private static final Instant READ_AT = Instant.parse("2026-03-01T00:00:00Z");

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      nullValues = "none",
      value = {
        // NCCL_DEBUG_TIMESTAMP_FORMAT default, https://github.com/devopsrustem/slurmv4
        "[2026-02-25 16:41:56] tpgds-aihub0003:2387398:2387398 [3] | 2026-02-25T16:41:56Z",
        // sglang's own prefix, same log
        "[2026-02-25 16:41:56 TP3] Scheduler hit an exception: | 2026-02-25T16:41:56Z",
        // with milliseconds after a label, https://github.com/NVIDIA/nccl/pull/1618
        "[03/16][2025-02-25 15:46:48,389] [misc/socket.cc:602] | 2025-02-25T15:46:48.389Z",
        // https://github.com/scitix/sichek/issues/44
        "[2026-01-04 21:33:04] test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3]"
            + " | 2026-01-04T21:33:04Z",
        // PyTorch c10 (glog) without a year, https://github.com/XPixelGroup/BasicSR/issues/737
        "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] | 2025-06-26T06:24:44.903Z",
        // after a Ray label and a rank label, https://github.com/hiyouga/LlamaFactory/issues/7396
        "[80746] [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] | 2025-03-21T02:07:08.408Z",
        // ISO-8601 forms (format examples)
        "2024-05-01T12:00:00.123Z node7:4100:4100 [0] | 2024-05-01T12:00:00.123Z",
        "2024-05-01T12:00:00+02:00 node7:4100:4100 [0] | 2024-05-01T10:00:00Z",
        "[2024-05-01T12:00:00.5] node7:4100:4100 [0] | 2024-05-01T12:00:00.500Z",
        // dmesg -T (format example)
        "[Tue Feb 25 16:33:59 2026] node7:4100:4100 [0] | 2026-02-25T16:33:59Z",
        // srun --label in front, then the NCCL default prefix (format example)
        "0: [2024-05-01 10:00:00] | 2024-05-01T10:00:00Z",
        // no timestamp: NCCL's default prefix, the old PyTorch "[E ProcessGroupNCCL.cpp:458]"
        "gpu017:4242:4249 [0] | none",
        "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught | none",
        "[2024-13-01 10:00:00] month 13 is no date | none",
      })
  void readsTheTimeAtTheStartOfTheLine(String text, Instant expected) {
    assertEquals(expected, new NcclLineTime(ZoneOffset.UTC).of(text, READ_AT));
  }

  @ParameterizedTest(name = "{0} in {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "[2026-02-25 16:41:56] | Europe/Moscow | 2026-02-25T13:41:56Z",
        "[Tue Feb 25 16:33:59 2026] | Asia/Shanghai | 2026-02-25T08:33:59Z",
        "2024-05-01T12:00:00Z | Asia/Shanghai | 2024-05-01T12:00:00Z",
      })
  void localTimesAreReadInTheNodesZone(String text, String zone, Instant expected) {
    assertEquals(expected, new NcclLineTime(ZoneId.of(zone)).of(text + " ", READ_AT));
  }

  @ParameterizedTest(name = "glog {0} read {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        // read two months later: the same year; read in January: the year before
        "[E1225 23:59:59.000000001 x] | 2026-02-20T00:00:00Z | 2025-12-25T23:59:59Z",
        "[E0226 00:00:00 x] | 2026-02-25T00:00:00Z | 2026-02-26T00:00:00Z",
        "[E0301 00:00:00 x] | 2026-02-25T00:00:00Z | 2025-03-01T00:00:00Z",
      })
  void aYearlessTimeIsTheLatestThatIsNotLaterThanTheReadTime(
      String text, Instant readAt, Instant expected) {
    assertEquals(expected, new NcclLineTime(ZoneOffset.UTC).of(text, readAt));
  }

  @org.junit.jupiter.api.Test
  void aLineWithoutTimeGivesNull() {
    assertNull(new NcclLineTime(ZoneOffset.UTC).of("", READ_AT));
  }
}
