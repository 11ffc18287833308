import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

import { OptionalDependencyMissingError } from '../core/errors/optional-dependency-missing.error';
import { TransactionHostNotFoundError } from '../core/errors/transaction-host-not-found.error';
import type { JoinTransactionsOptions } from '../core/join-transactions-options.interface';
import type { TaskTransaction } from '../core/task-transaction';
import { optionalDependencyMissing } from '../core/threadmill.messages';
import { transactionHostNotFound } from '../core/transaction.messages';
import type { ThreadmillModuleOptions } from '../threadmill-module-options.interface';
import { THREADMILL_MODULE_OPTIONS } from '../threadmill.module-definition';
import { requireOptional } from '../utils/require-optional.util';
import { joinedTaskTransaction } from './joined-transaction-handle';

/** What the join needs of nestjs-cls: whether a CLS context is active at all. */
interface NestjsClsModule {
  ClsServiceManager: { getClsService(): { isActive(): boolean } };
}

/** What the join needs of a TransactionHost of `@nestjs-cls/transactional`. */
interface TransactionHostLike {
  readonly tx: unknown;
  isTransactionActive(): boolean;
}

interface TransactionalModule {
  getTransactionHostToken(connectionName?: string): unknown;
}

const PACKAGES = 'nestjs-cls @nestjs-cls/transactional';

/**
 * The transaction of `@nestjs-cls/transactional` an enqueue joins, when the
 * module's `joinTransactions` asks for it: the open one's handle as a
 * TaskTransaction, or undefined outside one. The packages are loaded and the
 * TransactionHost looked up at the first enqueue inside a CLS context, not
 * at bootstrap: a command that boots the app's Threadmill configuration
 * alone (`threadmill enqueue`) has no ClsModule, and no transaction either.
 *
 * @internal
 */
@Injectable()
export class TransactionJoin {
  private readonly options: JoinTransactionsOptions | undefined;
  private cls: NestjsClsModule['ClsServiceManager'] | undefined;
  private host: TransactionHostLike | undefined;

  constructor(
    @Inject(THREADMILL_MODULE_OPTIONS) moduleOptions: ThreadmillModuleOptions,
    private readonly moduleRef: ModuleRef,
  ) {
    const join = moduleOptions.joinTransactions;
    this.options = join === true ? {} : join || undefined;
  }

  /** The open transaction to write in, or undefined: none open, or joining is off. */
  current(): TaskTransaction | undefined {
    if (this.options === undefined) return undefined;
    if (!this.clsManager().getClsService().isActive()) return undefined;
    const host = this.transactionHost(this.options.connectionName);
    if (!host.isTransactionActive()) return undefined;
    const { adapter } = this.options;
    return adapter
      ? adapter(host.tx as never)
      : joinedTaskTransaction(host.tx, this.options.connectionName);
  }

  private clsManager(): NestjsClsModule['ClsServiceManager'] {
    if (this.cls) return this.cls;
    const loaded = requireOptional<NestjsClsModule>('nestjs-cls');
    if (loaded === null) {
      throw new OptionalDependencyMissingError(
        optionalDependencyMissing('joinTransactions', PACKAGES),
      );
    }
    return (this.cls = loaded.ClsServiceManager);
  }

  private transactionHost(connectionName: string | undefined): TransactionHostLike {
    if (this.host) return this.host;
    const transactional = requireOptional<TransactionalModule>('@nestjs-cls/transactional');
    if (transactional === null) {
      throw new OptionalDependencyMissingError(
        optionalDependencyMissing('joinTransactions', PACKAGES),
      );
    }
    const token = transactional.getTransactionHostToken(connectionName) as symbol;
    try {
      this.host = this.moduleRef.get<TransactionHostLike>(token, { strict: false });
    } catch (error) {
      throw new TransactionHostNotFoundError(transactionHostNotFound(connectionName), {
        cause: error,
      });
    }
    return this.host;
  }
}
