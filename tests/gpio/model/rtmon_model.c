// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon-model.ko: a test device whose threaded IRQ does what real drivers'
 * do between the interrupt and the wakeup of their reader (test
 * infrastructure: tests/vm/guest/model-device.sh, README.md here).
 *
 * Two simulated interrupts (irq_sim, built beside gpio-sim): the device's,
 * handled in a thread, and a bus controller's. The device's IRQ thread, by
 * mode:
 *   direct  wakes the reader at once (the path gpio-sim's lines take);
 *   bus     starts a "transfer" and sleeps in D until the controller's
 *           interrupt (xfer_us later, its own thread) completes it, as an
 *           I2C/SPI GPIO expander's thread does (gpio-pca953x);
 *   lock    takes a spinlock_t that a helper thread holds on purpose when
 *           the interrupt comes (an rtlock wait on PREEMPT_RT);
 *   mutex   likewise with a mutex (D on every kernel, unless it spins);
 *   work    defers to a work item (its own workqueue), whose kworker
 *           is idle: queue_work() wakes it;
 *   workbusy the same, while that cpu's kworker runs a long item (it
 *           raised the interrupt): the device's item waits behind it and
 *           runs in the same kworker, with no wakeup.
 * Then it (or its work item) counts the event and wakes the reader.
 *
 * /dev/rtmon-model: write "MODE COUNT PERIOD_US" to fire COUNT interrupts,
 * one every PERIOD_US; read() blocks until an event was handled since the
 * reader's last read and returns the number handled so far (u32).
 * /sys/module/rtmon_model/parameters/irq_dev and irq_bus: the two IRQs;
 * reader_woken: events whose wakeup woke the reader in read() (it was
 * waiting: each such wakeup hands its event's chain on). The other events
 * found the reader running (between two reads, or back from its wait
 * having seen the event itself): no wakeup of theirs is traced.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irq_sim.h>
#include <linux/irqdomain.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

enum model_mode { M_DIRECT, M_BUS, M_LOCK, M_MUTEX, M_WORK, M_WORKBUSY, M_NR };
static const char *const mode_names[M_NR] = {
	"direct", "bus", "lock", "mutex", "work", "workbusy"
};

static int irq_dev, irq_bus;
module_param(irq_dev, int, 0444);
MODULE_PARM_DESC(irq_dev, "the device's interrupt (read only)");
module_param(irq_bus, int, 0444);
MODULE_PARM_DESC(irq_bus, "the bus controller's interrupt (read only)");
/* events whose wakeup woke the reader: each hands its chain on */
static int reader_woken;
module_param(reader_woken, int, 0444);
MODULE_PARM_DESC(reader_woken, "events whose wakeup woke the reader (read only)");
static int xfer_lost;
module_param(xfer_lost, int, 0444);
MODULE_PARM_DESC(xfer_lost, "bus transfers whose interrupt never came (read only)");
/* transfers complete before the thread waited: it never slept in D */
static int xfer_nosleep;
module_param(xfer_nosleep, int, 0444);
MODULE_PARM_DESC(xfer_nosleep, "bus transfers done before the thread waited for them (read only)");
static unsigned int xfer_us = 200;
module_param(xfer_us, uint, 0644);
MODULE_PARM_DESC(xfer_us, "bus mode: a transfer's time");
static unsigned int hold_us = 300;
module_param(hold_us, uint, 0644);
MODULE_PARM_DESC(hold_us, "lock, mutex, workbusy modes: how long the helper holds the lock or the kworker");

static struct irq_domain *domain;
static struct hrtimer fire_timer, xfer_timer;
static DECLARE_COMPLETION(xfer_done);
static DEFINE_SPINLOCK(dev_lock);
static DEFINE_MUTEX(dev_mutex);
static DECLARE_WAIT_QUEUE_HEAD(readers);
static struct task_struct *holder;
static atomic_t handled, holder_go;
static int mode;		/* of the firing under way */
static unsigned int left;	/* interrupts still to fire */
static ktime_t period;
static DEFINE_MUTEX(ctl_lock);	/* one firing at a time */
static struct workqueue_struct *wq;
static struct work_struct dev_work, busy_work;
static int busy_cpu;		/* workbusy: the cpu of the long item */

static void raise_irq(int irq)
{
	irq_set_irqchip_state(irq, IRQCHIP_STATE_PENDING, true);
}

static enum hrtimer_restart fire_fn(struct hrtimer *t)
{
	if (mode == M_WORKBUSY) {
		queue_work(wq, &busy_work);
	} else if (mode == M_LOCK || mode == M_MUTEX) {
		/*
		 * the helper raises it while it holds the lock (woken by
		 * wake_up_process(): a wait queue's lock sleeps on
		 * PREEMPT_RT, and this runs in hard IRQ)
		 */
		atomic_set(&holder_go, 1);
		wake_up_process(holder);
	} else {
		raise_irq(irq_dev);
	}
	if (--left == 0)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, period);
	return HRTIMER_RESTART;
}

static enum hrtimer_restart xfer_fn(struct hrtimer *t)
{
	raise_irq(irq_bus);
	return HRTIMER_NORESTART;
}

static int holder_fn(void *unused)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!atomic_xchg(&holder_go, 0)) {
			if (!kthread_should_stop())
				schedule();
			__set_current_state(TASK_RUNNING);
			continue;
		}
		__set_current_state(TASK_RUNNING);
		if (mode == M_LOCK) {
			spin_lock(&dev_lock);
			raise_irq(irq_dev);
			udelay(hold_us);
			spin_unlock(&dev_lock);
		} else {
			mutex_lock(&dev_mutex);
			raise_irq(irq_dev);
			udelay(hold_us);
			mutex_unlock(&dev_mutex);
		}
	}
	return 0;
}

/* an event handled: count it, wake the reader */
static void handle_event(void)
{
	atomic_inc(&handled);
	wake_up_interruptible(&readers);
}

static void dev_work_fn(struct work_struct *w)
{
	handle_event();
}

/* holds its kworker busy, with the device's interrupt raised from it */
static void busy_work_fn(struct work_struct *w)
{
	WRITE_ONCE(busy_cpu, raw_smp_processor_id());
	raise_irq(irq_dev);
	udelay(hold_us);
}

static irqreturn_t dev_thread(int irq, void *unused)
{
	unsigned long nvcsw;

	switch (mode) {
	case M_WORK:
		queue_work(wq, &dev_work);
		return IRQ_HANDLED;
	case M_WORKBUSY:
		queue_work_on(READ_ONCE(busy_cpu), wq, &dev_work);
		return IRQ_HANDLED;
	case M_BUS:
		/* a voluntary switch between here and the wakeup is the wait */
		nvcsw = current->nvcsw;
		reinit_completion(&xfer_done);
		hrtimer_start(&xfer_timer, ns_to_ktime((u64)xfer_us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
		/* a lost bus interrupt must not hang the thread (and rmmod) */
		if (!wait_for_completion_timeout(&xfer_done, HZ))
			WRITE_ONCE(xfer_lost, xfer_lost + 1);
		if (current->nvcsw == nvcsw)
			WRITE_ONCE(xfer_nosleep, xfer_nosleep + 1);
		break;
	case M_LOCK:
		spin_lock(&dev_lock);
		spin_unlock(&dev_lock);
		break;
	case M_MUTEX:
		mutex_lock(&dev_mutex);
		mutex_unlock(&dev_mutex);
		break;
	}
	handle_event();
	return IRQ_HANDLED;
}

static irqreturn_t bus_thread(int irq, void *unused)
{
	complete(&xfer_done);
	return IRQ_HANDLED;
}

static int model_open(struct inode *inode, struct file *f)
{
	f->private_data = (void *)(unsigned long)atomic_read(&handled);
	return 0;
}

/*
 * The reader's wait entry: called by an event's wakeup while the reader is
 * queued. It wakes the reader only when that is still in its sleep state
 * (traced as sched_waking): a reader that saw the event in its own check
 * after it queued itself is woken by nobody. model_read() takes no lock
 * between prepare_to_wait() and schedule(): a reader blocked on an rtlock
 * there would count as woken with no wakeup traced.
 */
static int reader_wake(struct wait_queue_entry *wq_entry, unsigned int mode,
		       int sync, void *key)
{
	int woken = autoremove_wake_function(wq_entry, mode, sync, key);

	if (woken)
		WRITE_ONCE(reader_woken, reader_woken + 1);
	return woken;
}

static ssize_t model_read(struct file *f, char __user *buf, size_t n,
			  loff_t *pos)
{
	unsigned long seen = (unsigned long)f->private_data;
	DEFINE_WAIT_FUNC(wait, reader_wake);
	int ret = 0;
	u32 now;

	if (n < sizeof(now))
		return -EINVAL;
	/* wait_event_interruptible(), with reader_wake as the entry's function */
	while ((unsigned long)atomic_read(&handled) == seen) {
		prepare_to_wait(&readers, &wait, TASK_INTERRUPTIBLE);
		if ((unsigned long)atomic_read(&handled) != seen)
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	finish_wait(&readers, &wait);
	if (ret)
		return ret;
	now = atomic_read(&handled);
	f->private_data = (void *)(unsigned long)now;
	if (copy_to_user(buf, &now, sizeof(now)))
		return -EFAULT;
	return sizeof(now);
}

static ssize_t model_write(struct file *f, const char __user *ubuf, size_t n,
			   loff_t *pos)
{
	char buf[64], name[16];
	unsigned int count, period_us;
	int m;

	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	if (sscanf(buf, "%15s %u %u", name, &count, &period_us) != 3 ||
	    !count || period_us < 100)
		return -EINVAL;
	for (m = 0; m < M_NR && strcmp(name, mode_names[m]); m++)
		;
	if (m == M_NR)
		return -EINVAL;
	mutex_lock(&ctl_lock);
	if (hrtimer_active(&fire_timer)) {
		mutex_unlock(&ctl_lock);
		return -EBUSY;
	}
	mode = m;
	left = count;
	period = ns_to_ktime((u64)period_us * NSEC_PER_USEC);
	hrtimer_start(&fire_timer, period, HRTIMER_MODE_REL_HARD);
	mutex_unlock(&ctl_lock);
	return n;
}

static const struct file_operations model_fops = {
	.owner = THIS_MODULE,
	.open = model_open,
	.read = model_read,
	.write = model_write,
	.llseek = noop_llseek,
};

static struct miscdevice model_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rtmon-model",
	.fops = &model_fops,
	.mode = 0600,
};

static int __init model_init(void)
{
	int ret;

	domain = irq_domain_create_sim(NULL, 2);
	if (IS_ERR(domain))
		return PTR_ERR(domain);
	irq_dev = irq_create_mapping(domain, 0);
	irq_bus = irq_create_mapping(domain, 1);
	if (!irq_dev || !irq_bus) {
		ret = -ENOMEM;
		goto err_domain;
	}
	/* per-cpu, high priority: its kworkers serve little else */
	wq = alloc_workqueue("rtmon-model", WQ_HIGHPRI, 0);
	if (!wq) {
		ret = -ENOMEM;
		goto err_domain;
	}
	INIT_WORK(&dev_work, dev_work_fn);
	INIT_WORK(&busy_work, busy_work_fn);
	hrtimer_init(&fire_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	fire_timer.function = fire_fn;
	hrtimer_init(&xfer_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	xfer_timer.function = xfer_fn;
	ret = request_threaded_irq(irq_dev, NULL, dev_thread, IRQF_ONESHOT,
				   "rtmon-model", NULL);
	if (ret)
		goto err_domain;
	ret = request_threaded_irq(irq_bus, NULL, bus_thread, IRQF_ONESHOT,
				   "rtmon-model-bus", NULL);
	if (ret)
		goto err_dev;
	holder = kthread_run(holder_fn, NULL, "rtmon-model-hold");
	if (IS_ERR(holder)) {
		ret = PTR_ERR(holder);
		goto err_bus;
	}
	ret = misc_register(&model_dev);
	if (ret)
		goto err_holder;
	return 0;
err_holder:
	kthread_stop(holder);
err_bus:
	free_irq(irq_bus, NULL);
err_dev:
	free_irq(irq_dev, NULL);
err_domain:
	if (wq)
		destroy_workqueue(wq);
	if (irq_bus)
		irq_dispose_mapping(irq_bus);
	if (irq_dev)
		irq_dispose_mapping(irq_dev);
	irq_domain_remove_sim(domain);
	return ret;
}

static void __exit model_exit(void)
{
	misc_deregister(&model_dev);
	hrtimer_cancel(&fire_timer);
	kthread_stop(holder);
	free_irq(irq_dev, NULL);
	hrtimer_cancel(&xfer_timer);
	free_irq(irq_bus, NULL);
	destroy_workqueue(wq);
	irq_dispose_mapping(irq_bus);
	irq_dispose_mapping(irq_dev);
	irq_domain_remove_sim(domain);
}

module_init(model_init);
module_exit(model_exit);
MODULE_DESCRIPTION("rtmon test device: an IRQ thread that waits on a bus or a lock, or defers to a workqueue");
MODULE_LICENSE("GPL");
