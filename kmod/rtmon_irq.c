// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_irq.c - find an interrupt by its handler's name, as it appears in
 * /proc/interrupts (the name given to request_irq()).
 *
 * irq_to_desc() is not exported to modules; irq_get_irq_data() is, and
 * the descriptor around it is reached with irq_data_to_desc().
 */
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/rcupdate.h>

#include "rtmon.h"

int rtmon_irq_by_name(const char *name)
{
	unsigned int irq;

	for (irq = 0; irq < nr_irqs && irq < RTM_MAX_IRQ; irq++) {
		struct irq_data *d;
		struct irq_desc *desc;
		struct irqaction *act;
		unsigned long flags;
		bool found = false;

		/* a freed descriptor (MSI teardown) waits for RCU, as in
		 * show_interrupts() */
		rcu_read_lock();
		d = irq_get_irq_data(irq);
		if (d) {
			desc = irq_data_to_desc(d);
			raw_spin_lock_irqsave(&desc->lock, flags);
			for (act = desc->action; act; act = act->next)
				if (act->name && !strcmp(act->name, name))
					found = true;
			raw_spin_unlock_irqrestore(&desc->lock, flags);
		}
		rcu_read_unlock();
		if (found)
			return irq;
	}
	return -ENOENT;
}
