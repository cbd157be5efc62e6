// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_dev.c - /dev/rtmon: the ioctl control interface, the work markers
 * and the record stream (read/poll). The ABI is uapi/rtmon.h.
 *
 * Every ioctl argument is copied in with copy_from_user() and checked
 * (size, NUL termination, ranges, unknown flags, reserved fields) before
 * use; bad input is -EINVAL/-EFAULT/-EPERM/-ENOTTY. A record taken from a
 * ring but not delivered (fault in copy_to_user) is kept for the next read.
 * In acknowledged mode (RTMON_IOC_READ_MODE) records read stay in their
 * ring slots until RTMON_IOC_ACK; closing the reader unacknowledged hands
 * them to the next reader.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/threads.h>

#include "rtmon.h"
#include "rtmon_trace.h"
#include "rtmon_compat.h"

struct rtmon_file {
	struct mutex lock;		/* one read() at a time per file */
	bool reader;			/* this file holds the reader role */
	bool held;			/* rec popped but not yet delivered */
	bool acked;			/* RTMON_READ_ACKED */
	struct rtm_record rec;
};

/* The file that reads records (NULL: none yet); see rtmon_claim_reader(). */
static struct rtmon_file *rtmon_reader;

static int rtmon_open(struct inode *inode, struct file *file)
{
	struct rtmon_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static int rtmon_release(struct inode *inode, struct file *file)
{
	struct rtmon_file *f = file->private_data;

	/* a record held back by a faulting read goes unread: count it read */
	if (f->reader) {
		/* what was read and not acknowledged goes to the next reader */
		if (f->acked)
			rtmon_records_rewind();
		smp_store_release(&rtmon_reader, NULL);
	}
	kfree(f);
	return 0;
}

/*
 * The first file to read or poll becomes the reader; others get -EBUSY.
 * Threads sharing the reader's file race here harmlessly: the exchange
 * tells "taken by this file" from "taken by another". The records name
 * every target's tasks and reading pops what rtmond would store: as with
 * perf's data, the opener needs CAP_PERFMON or CAP_SYS_ADMIN (-EPERM);
 * the device's group is for applications that mark work.
 */
static int rtmon_claim_reader(struct file *file)
{
	struct rtmon_file *f = file->private_data;
	struct rtmon_file *owner;

	if (READ_ONCE(f->reader))
		return 0;
	if (!file_ns_capable(file, &init_user_ns, CAP_PERFMON) &&
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	owner = cmpxchg(&rtmon_reader, NULL, f);
	if (owner && owner != f)
		return -EBUSY;
	WRITE_ONCE(f->reader, true);
	return 0;
}

/* a reader that finds nothing here sleeps: see rtmon_reader_idle_check() */
static bool rtmon_readable(struct rtmon_file *f)
{
	return f->held || rtmon_reader_idle_check();
}

static ssize_t rtmon_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct rtmon_file *f = file->private_data;
	const size_t rsz = sizeof(struct rtm_record);
	size_t done = 0;
	int ret;

	if (count < rsz)
		return -EINVAL;
	ret = rtmon_claim_reader(file);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	for (;;) {
		while (count - done >= rsz) {
			int cpu1;

			if (f->acked) {
				cpu1 = rtmon_record_peek(&f->rec);
				if (!cpu1)
					break;
				if (copy_to_user(buf + done, &f->rec, rsz)) {
					rtmon_record_unpeek(cpu1 - 1);
					ret = -EFAULT;
					goto out;
				}
				done += rsz;
				continue;
			}
			if (!f->held && !rtmon_record_pop(&f->rec))
				break;
			f->held = true;
			if (copy_to_user(buf + done, &f->rec, rsz)) {
				ret = -EFAULT;
				goto out;
			}
			f->held = false;
			done += rsz;
		}
		if (done || (file->f_flags & O_NONBLOCK))
			break;
		mutex_unlock(&f->lock);
		ret = wait_event_interruptible(rtmon_readers_wq,
					       rtmon_readable(f));
		if (ret)
			return ret;
		if (mutex_lock_interruptible(&f->lock))
			return -ERESTARTSYS;
	}
	ret = done ? 0 : -EAGAIN;
out:
	mutex_unlock(&f->lock);
	return done ? done : ret;
}

static __poll_t rtmon_poll(struct file *file, poll_table *wait)
{
	struct rtmon_file *f = file->private_data;

	if (rtmon_claim_reader(file))
		return EPOLLERR;
	poll_wait(file, &rtmon_readers_wq, wait);
	return rtmon_readable(f) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* Copy a size-prefixed struct in; its size must be exactly ours. */
static int rtmon_copy_sized(void *dst, size_t size, const void __user *src)
{
	u32 usize;

	if (get_user(usize, (const u32 __user *)src))
		return -EFAULT;
	if (usize != size)
		return -EINVAL;
	if (copy_from_user(dst, src, size))
		return -EFAULT;
	return 0;
}

static bool rtmon_str_ok(const char *s, size_t len)
{
	return strnlen(s, len) < len;
}

static int rtmon_check_target(const struct rtmon_target *t)
{
	unsigned int i;

	if (t->flags & ~RTMON_TF_ALL)
		return -EINVAL;
	if (t->end > RTMON_END_WORK_END || t->src > RTMON_SRC_IRQ_ANY)
		return -EINVAL;
	if (!rtmon_str_ok(t->irq_name, sizeof(t->irq_name)) ||
	    !rtmon_str_ok(t->comm, sizeof(t->comm)) ||
	    !rtmon_str_ok(t->name, sizeof(t->name)))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(t->reserved); i++)
		if (t->reserved[i])
			return -EINVAL;
	if (t->pad || (t->timers & ~RTM_TIMERS_ALL) ||
	    (t->timers && t->src != RTMON_SRC_ANY &&
	     t->src != RTMON_SRC_TIMER))
		return -EINVAL;
	if (t->pid > PID_MAX_LIMIT || t->tgid > PID_MAX_LIMIT)
		return -EINVAL;
	/* an hour is past any real-time deadline; beyond is a unit mistake */
	if (t->deadline_ns > 3600ULL * NSEC_PER_SEC)
		return -EINVAL;
	if (t->src == RTMON_SRC_IRQ) {
		if (!t->irq_name[0] && (t->irq < 0 || t->irq >= RTM_MAX_IRQ))
			return -EINVAL;
		if (t->irq_name[0] && t->irq != -1)
			return -EINVAL;
	} else if (t->irq != -1 || t->irq_name[0]) {
		return -EINVAL;
	}
	/* no task filter: the chain ends with the IRQ's own handling */
	if (!t->comm[0] && !t->pid && !t->tgid && t->src != RTMON_SRC_IRQ)
		return -EINVAL;
	return 0;
}

static long rtmon_ioctl_target(unsigned int cmd, void __user *arg)
{
	struct rtmon_target t;
	u32 id;
	int ret;

	if (cmd == RTMON_IOC_TARGET_DEL) {
		if (get_user(id, (u32 __user *)arg))
			return -EFAULT;
		mutex_lock(&rtmon_ctl_lock);
		ret = rtmon_target_del(id);
		mutex_unlock(&rtmon_ctl_lock);
		return ret;
	}
	ret = rtmon_copy_sized(&t, sizeof(t), arg);
	if (ret)
		return ret;
	mutex_lock(&rtmon_ctl_lock);
	if (cmd == RTMON_IOC_TARGET_GET) {
		ret = rtmon_target_get(t.id, &t);
	} else {
		ret = rtmon_check_target(&t);
		if (!ret)
			ret = rtmon_target_add(&t);
	}
	mutex_unlock(&rtmon_ctl_lock);
	if (!ret && copy_to_user(arg, &t, sizeof(t)))
		ret = -EFAULT;
	return ret;
}

static long rtmon_ioctl_version(void __user *arg)
{
	struct rtmon_version v;
	struct rtm_params p;
	int ret = rtmon_copy_sized(&v, sizeof(v), arg);

	if (ret)
		return ret;
	rtmon_tracker_params(&p);
	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	v.abi_version = RTMON_ABI_VERSION;
	v.record_version = RTM_REC_VERSION;
	v.record_size = sizeof(struct rtm_record);
	v.max_targets = RTM_MAX_TARGETS;
	v.max_hops = RTM_REC_MAX_HOPS;
	v.ncpus = p.ncpus;
	v.nchains = p.nchains;
	v.nbranches = p.nbranches;
	v.ring_slots = p.ring_slots;
	v.running = rtmon_tracker_running();
	v.preempt_rt = RTMON_PREEMPT_RT;
	strscpy(v.module_version, RTMON_VERSION, sizeof(v.module_version));
	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long rtmon_ioctl_counters(void __user *arg)
{
	struct rtmon_counters *c;
	int ret;

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = rtmon_copy_sized(c, sizeof(*c), arg);
	if (!ret) {
		rtmon_counters(c);
		if (copy_to_user(arg, c, sizeof(*c)))
			ret = -EFAULT;
	}
	kfree(c);
	return ret;
}

/* The markers: cheap, allowed to every opener, a no-op while stopped. */
static long rtmon_ioctl_work(unsigned int cmd, void __user *arg)
{
	struct rtm_core *c;
	u64 cookie;
	int cpu;

	if (get_user(cookie, (u64 __user *)arg))
		return -EFAULT;
	cpu = get_cpu();
	trace_rtmon_work(cmd == RTMON_IOC_WORK_BEGIN, cookie);
	c = READ_ONCE(rtmon_core);
	if (c) {
		if (cmd == RTMON_IOC_WORK_BEGIN)
			rtm_ev_work_begin(c, cpu, ktime_get_mono_fast_ns(),
					  current->pid, current->tgid, cookie,
					  current->comm);
		else
			rtm_ev_work_end(c, cpu, ktime_get_mono_fast_ns(),
					current->pid, current->tgid, cookie,
					current->comm);
	}
	put_cpu();
	return 0;
}

/* RTMON_IOC_READ_MODE and RTMON_IOC_ACK: the reader's own ioctls. */
static long rtmon_ioctl_reader(struct file *file, unsigned int cmd,
			       void __user *arg)
{
	struct rtmon_file *f = file->private_data;
	u32 mode;
	long ret;

	if (cmd == RTMON_IOC_READ_MODE && get_user(mode, (u32 __user *)arg))
		return -EFAULT;
	if (cmd == RTMON_IOC_READ_MODE && mode > RTMON_READ_ACKED)
		return -EINVAL;
	ret = rtmon_claim_reader(file);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	if (cmd == RTMON_IOC_ACK) {
		ret = f->acked ? 0 : -EINVAL;
		if (f->acked)
			rtmon_records_ack();
	} else if (mode == RTMON_READ_ACKED && !f->acked) {
		/* a consumed record held back by a fault is delivered first */
		ret = f->held ? -EBUSY : 0;
		if (!f->held) {
			rtmon_records_rewind();	/* consuming reads moved on */
			f->acked = true;
		}
	} else if (mode == RTMON_READ_CONSUME && f->acked) {
		rtmon_records_rewind();	/* unacknowledged: read again */
		f->acked = false;
	}
	mutex_unlock(&f->lock);
	return ret;
}

static long rtmon_ioctl(struct file *file, unsigned int cmd, unsigned long a)
{
	void __user *arg = (void __user *)a;
	long ret;

	switch (cmd) {
	case RTMON_IOC_READ_MODE:
	case RTMON_IOC_ACK:
		return rtmon_ioctl_reader(file, cmd, arg);
	case RTMON_IOC_WORK_BEGIN:
	case RTMON_IOC_WORK_END:
		return rtmon_ioctl_work(cmd, arg);
	case RTMON_IOC_VERSION:
		return rtmon_ioctl_version(arg);
	case RTMON_IOC_COUNTERS:
		return rtmon_ioctl_counters(arg);
	case RTMON_IOC_TARGET_GET:
		return rtmon_ioctl_target(cmd, arg);
	case RTMON_IOC_TARGET_ADD:
	case RTMON_IOC_TARGET_DEL:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return rtmon_ioctl_target(cmd, arg);
	case RTMON_IOC_START:
	case RTMON_IOC_STOP:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		mutex_lock(&rtmon_ctl_lock);
		ret = 0;
		if (cmd == RTMON_IOC_START)
			ret = rtmon_tracker_start();
		else
			rtmon_tracker_stop();
		mutex_unlock(&rtmon_ctl_lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations rtmon_fops = {
	.owner		= THIS_MODULE,
	.open		= rtmon_open,
	.release	= rtmon_release,
	.read		= rtmon_read,
	.poll		= rtmon_poll,
	.unlocked_ioctl	= rtmon_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,	/* same layout for 32-bit */
};

static struct miscdevice rtmon_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rtmon",
	.fops	= &rtmon_fops,
	.mode	= 0660,		/* group set by udev (config/) */
};

int rtmon_dev_init(void)
{
	return misc_register(&rtmon_misc);
}

void rtmon_dev_exit(void)
{
	misc_deregister(&rtmon_misc);
}
