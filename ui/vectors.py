"""Which word vectors a page uses: the bundled GloVe, a file of the configured folder, or an upload."""

from __future__ import annotations

import dataclasses

import streamlit as st

from core import glove
from core.glove import VectorsError, load_glove
from core.vectors import WordVectors
from ui.cache import cached
from ui.device import device
from ui.i18n import problem, t
from ui.settings import Setting, Settings

UPLOAD = "upload"


def vectors_setting(prefix: str) -> Setting:
    """The vectors picker's setting for a page's declaration (`<prefix>_source`): kept while the session lasts, not in
    the link (a link cannot carry a file). Its options are the configured folder's files, read when it is drawn
    (choose_vectors); declared are the two always there."""
    return Setting(
        f"{prefix}_source", "selectbox", glove.BUNDLED, "ui.vectors", options=(glove.BUNDLED, UPLOAD), in_link=False
    )


@cached()
def _bundled_vectors() -> WordVectors:
    return load_glove(device=device())


def bundled_vectors() -> WordVectors:
    """The bundled GloVe 6B 50d, loaded once per server process and shared by every page and learner.

    Raises VectorsError when its package is not installed.
    """
    with st.spinner(t("ui.loading_bundled")):
        return _bundled_vectors()


def bundled_or_stop() -> WordVectors:
    """bundled_vectors(), or, when their package is not installed, a message that says how to install it and the
    end of this run (the widgets above stay, so another vectors file can still be chosen)."""
    try:
        return bundled_vectors()
    except VectorsError as err:
        st.error(problem(err))
        st.stop()


@cached(max_entries=2)
def _vectors_from_folder(name: str) -> WordVectors:
    return load_glove(name, device=device())


def vectors_from_folder(name: str) -> WordVectors:
    """A vectors file of the configured folder, loaded once per server process."""
    with st.spinner(t("ui.loading_folder")):
        return _vectors_from_folder(name)


def source_name(wv: WordVectors) -> str:
    """The vectors' name as the picker shows it: the bundled GloVe's in the reader's language, a file's as it is."""
    return t("ui.bundled") if wv.name == glove.BUNDLED else wv.name


def choose_vectors(settings: Settings) -> tuple[WordVectors, str]:
    """The vectors picker (bundled, the folder's files, an upload), drawn from the page's declared
    `<prefix>_source` (vectors_setting), and a cache key for the choice.

    An upload is parsed once and kept in this session only. A file that cannot be used gets a message saying why,
    and the page keeps the vectors it had: the last good upload, else the bundled vectors.
    """
    prefix = settings.prefix
    options = (glove.BUNDLED, *glove.list_vector_files(), UPLOAD)
    source = dataclasses.replace(settings[f"{prefix}_source"], options=options).draw(
        st,
        format_func=lambda o: t("ui.upload") if o == UPLOAD else t("ui.bundled") if o == glove.BUNDLED else o,
        help=t("ui.vectors_help", folder=glove.vectors_dir().resolve(), env=glove.ENV_DIR),
    )
    try:
        if source == glove.BUNDLED:
            return bundled_or_stop(), glove.BUNDLED
        if source != UPLOAD:
            return vectors_from_folder(source), f"folder:{source}"
        upload = st.file_uploader(
            t("ui.upload_label"),
            type=["txt", "vec", "pt"],
            key=f"{prefix}_upload",
            max_upload_size=glove.MAX_UPLOAD_BYTES // 2**20,  # the browser's check; load_glove checks it again
        )
        if upload is None:
            st.info(t("ui.upload_waiting"))
            return bundled_or_stop(), glove.BUNDLED
        return uploaded(prefix, upload)
    except VectorsError as err:
        st.error(t("ui.vectors_fallback", problem=problem(err)))
        return bundled_or_stop(), glove.BUNDLED


def uploaded(prefix: str, upload) -> tuple[WordVectors, str]:
    """The upload's vectors, parsed once; for a file that cannot be used, the last good upload's, with a message.

    Raises VectorsError when there is no good upload to keep.
    """
    good, refused = f"{prefix}_uploaded", f"{prefix}_refused"  # (file id, name, vectors); (file id, error)
    if st.session_state.get(good, (None,))[0] != upload.file_id:
        if st.session_state.get(refused, (None,))[0] != upload.file_id:
            try:
                vectors = load_glove(upload.getvalue(), name=upload.name, device=device())
                st.session_state[good] = (upload.file_id, upload.name, vectors)
                st.session_state.pop(refused, None)
            except VectorsError as err:
                st.session_state[refused] = (upload.file_id, err)
        if refused in st.session_state:
            refusal = st.session_state[refused][1]
            if good not in st.session_state:
                raise refusal
            st.error(t("ui.vectors_kept", problem=problem(refusal), name=st.session_state[good][1]))
    file_id, _, vectors = st.session_state[good]
    return vectors, f"upload:{file_id}"
