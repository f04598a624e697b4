package io.fabricpulse.schemas.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Severity;
import java.util.List;
import org.junit.jupiter.api.Test;

class XidCatalogTest {

  @Test
  void carriesTheCodesTheFleetActsOn() {
    for (int code :
        List.of(13, 31, 43, 45, 48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140)) {
      assertTrue(XidCatalog.lookup(code).isPresent(), "Xid " + code);
    }
  }

  @Test
  void severitiesFollowNvidiaResolutionBuckets() {
    assertEquals(Severity.CRITICAL, XidCatalog.severity(48));
    assertEquals(Severity.CRITICAL, XidCatalog.severity(79));
    assertEquals(Severity.CRITICAL, XidCatalog.severity(95));
    assertEquals(Severity.CRITICAL, XidCatalog.severity(140));
    assertEquals(Severity.WARNING, XidCatalog.severity(94));
    assertEquals(Severity.WARNING, XidCatalog.severity(63));
    assertEquals(Severity.INFO, XidCatalog.severity(43));
    assertEquals(Severity.WARNING, XidCatalog.severity(9999));
    assertEquals("ROBUST_CHANNEL_GPU_ECC_DBE", XidCatalog.lookup(48).orElseThrow().mnemonic());
    assertTrue(XidCatalog.lookup(79).orElseThrow().action().startsWith("RESTART_BM"));
  }
}
