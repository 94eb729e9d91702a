{
  "targets": [
    {
      "target_name": "dns_udp",
      "sources": ["src/dns_udp.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
