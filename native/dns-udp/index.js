'use strict';
// The compiled addon, or null where it was not built (another OS, no compiler): the caller then
// answers through node:dgram. NETREP_DNSBL_UDP_IO=dgram is read by the caller, not here.
let binding = null;
try {
  binding = require('./build/Release/dns_udp.node');
} catch {
  binding = null;
}
module.exports = binding;
