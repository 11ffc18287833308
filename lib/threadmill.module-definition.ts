import { ConfigurableModuleBuilder } from '@nestjs/common';

import type { ThreadmillModuleOptions } from './threadmill-module-options.interface';

/** @internal */
export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: THREADMILL_MODULE_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ThreadmillModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
