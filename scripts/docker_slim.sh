#!/bin/sh
# Run by the Dockerfile right after pip, in the same layer: takes out of the image's venv what the lab never
# imports or loads (docs/deploy.md, "Image size", lists what is left and its size).
#   sh scripts/docker_slim.sh /opt/venv
# Each cut names what would need it; a page that came to need one fails in scripts/docker_smoke.sh (every page
# opened in the image) and in the image's import check below.
set -eu
venv=$1
site=$(echo "$venv"/lib/python3.*/site-packages)

# Distributions pip installs as dependencies that none of the lab's code paths imports: Streamlit's map and Altair
# charts (st.pydeck_chart, st.line_chart; the lab draws with plotly) and what only they need; torch's graph
# compiler's networkx (torch.compile); the Hugging Face Hub client tokenizers declares (the lab reads
# tokenizer.json from the installed model package); Pillow (st.image and plotly's image data: the lab shows no
# image, and plotly imports PIL only inside try/except ImportError); pip and setuptools.
"$venv/bin/python" -m pip uninstall --yes --quiet \
    pydeck altair jsonschema jsonschema-specifications referencing rpds-py \
    networkx huggingface-hub hf-xet httpx2 httpcore2 \
    pillow \
    pip setuptools

# Parts of packages that are never loaded: each package's own test suite; torch's C++ headers, CMake files, test
# binaries and libraries and protoc (for building extensions and testing torch; `import torch` needs
# bin/torch_shm_manager alone); pyarrow's headers and its Flight, S3,
# GCS, Azure and HDFS modules (pyarrow treats each as optional); plotly's Jupyter widget and its plotly.js (the
# browser gets Streamlit's own plotly.js; the lab writes no HTML files).
find "$site" -depth -type d -name tests -exec rm -rf {} +
find "$site"/torch/bin -mindepth 1 -not -name torch_shm_manager -exec rm -rf {} +
rm -rf "$site"/torch/test "$site"/torch/include "$site"/torch/share \
    "$site"/torch/lib/libtorchbind_test.so "$site"/torch/lib/libjitbackend_test.so \
    "$site"/torch/lib/libbackend_with_compiler.so "$site"/torch/lib/libaoti_custom_ops.so \
    "$site"/pyarrow/include "$site"/pyarrow/src \
    "$site"/pyarrow/_flight.* "$site"/pyarrow/libarrow_flight.* "$site"/pyarrow/libarrow_python_flight.* \
    "$site"/pyarrow/_s3fs.* "$site"/pyarrow/libarrow_s3.* "$site"/pyarrow/_gcsfs.* "$site"/pyarrow/_azurefs.* \
    "$site"/pyarrow/_hdfs.* "$site"/pyarrow/_pyarrow_cpp_tests.* \
    "$site"/plotly/labextension "$site"/plotly/package_data/widgetbundle.js "$site"/plotly/package_data/plotly.min.js
find "$site" -depth -type d -name __pycache__ -exec rm -rf {} +

# Debug symbols out of the shared libraries (a sixth of the venv: torch's libtorch_cpu.so alone carries 89 MB),
# with binutils' strip, when this build can get it: installed here and removed again at the end of this layer
# (from Debian's mirror online, from the .deb files served beside the wheels offline: $WHEELS/debs/). A library
# that no longer loads once stripped (auditwheel's patched ELF files: numba's thread pools, the OpenBLAS copies)
# gets its original back, so the image is only ever smaller.
strip_libraries() {
    find "$site" -name '*.so*' -type f -size +256k >/tmp/emblab-libs
    while read -r lib; do
        cp -p "$lib" "$lib.orig"
        strip --strip-unneeded "$lib" 2>/dev/null || cp -p "$lib.orig" "$lib"
    done </tmp/emblab-libs
    "$venv/bin/python" - /tmp/emblab-libs <<'PY'
import ctypes, os, sys
restored = 0
for lib in open(sys.argv[1]).read().split("\n"):
    if not lib:
        continue
    try:
        ctypes.CDLL(lib, mode=ctypes.RTLD_LOCAL)
    except OSError as err:  # a missing dependency is not the strip's doing: only a broken ELF file is
        if "ELF" in str(err) or "page-aligned" in str(err):
            os.replace(lib + ".orig", lib)
            restored += 1
            continue
    os.remove(lib + ".orig")
print(f"strip: {restored} libraries kept as they were (they no longer loaded once stripped)")
PY
    rm -f /tmp/emblab-libs
}

if command -v strip >/dev/null; then
    strip_libraries
elif [ "${OFFLINE:-0}" = 1 ]; then
    mkdir /tmp/emblab-debs
    if "$venv/bin/python" - "${WHEELS%/}/debs/" /tmp/emblab-debs <<'PY'; then
import re, sys, urllib.request
url, folder = sys.argv[1:]
try:
    names = re.findall(r'href="([^"/]+\.deb)"', urllib.request.urlopen(url, timeout=10).read().decode())
except OSError as err:
    sys.exit(f"strip: no binutils .deb files at {url} ({err}): debug symbols kept")
if not any(n.startswith("binutils_") for n in names):
    sys.exit(f"strip: no binutils .deb file at {url}: debug symbols kept")
for name in names:
    urllib.request.urlretrieve(url + name, f"{folder}/{name}")
PY
        packages=$(for deb in /tmp/emblab-debs/*.deb; do dpkg-deb -f "$deb" Package; done)
        if dpkg -i /tmp/emblab-debs/*.deb >/dev/null; then
            strip_libraries
        else
            echo "strip: binutils' .deb files do not install on this base: debug symbols kept"
        fi
        # shellcheck disable=SC2086 # one word per package
        dpkg --purge $packages >/dev/null
    fi
    rm -rf /tmp/emblab-debs
elif apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends binutils \
        >/dev/null; then
    strip_libraries
    apt-get purge -y -qq --auto-remove binutils >/dev/null
    rm -rf /var/lib/apt/lists/*
else
    echo "strip: binutils not installable from Debian's mirror: debug symbols kept"
fi
rm -rf /var/log/apt /var/log/dpkg.log /var/cache/debconf/*-old
