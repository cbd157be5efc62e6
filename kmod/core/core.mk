# rtmon chain-tracking core: sources relative to kmod/.
# Included by the kernel Kbuild and by the user-space builds (tests,
# replay, bench). Plain C11, only rtm_platform.h includes system headers.
RTM_CORE_SRCS := core/rtm_pool.c core/rtm_htab.c core/rtm_ring.c \
		 core/rtm_target.c core/rtm_chain.c core/rtm_events.c \
		 core/rtm_tick.c core/rtm_core.c core/rtm_handoff.c \
		 core/rtm_blame.c core/rtm_intf.c core/rtm_repoll.c core/rtm_work.c core/rtm_pass.c \
		 core/rtm_kwork.c
RTM_CORE_HDRS := core/rtm_platform.h core/rtm_record.h core/rtm_core.h \
		 core/rtm_internal.h core/rtm_fast.h
