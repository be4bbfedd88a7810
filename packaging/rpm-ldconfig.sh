#!/bin/sh
# post-(un)install of the RPM: libcudnnctl.so.0 into (out of) the loader cache
/sbin/ldconfig
